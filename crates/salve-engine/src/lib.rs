//! TODO(owner): apply orchestration
