//! Which providers an ask talks to: the configuration's chain for the model hint, one provider
//! alone, and optionally every reply appended to a cassette for replay later.

use std::path::Path;
use std::sync::Arc;

use salve_llm::replay::Recording;
use salve_llm::{Chain, Provider};

use super::{Error, Options};
use crate::config::Config;

/// The chain `options` asks for, the follow-up budget (the options', else the
/// configuration's), and notes on the repository sections ignored because they are not trusted.
pub(super) fn build(options: &Options) -> Result<(Chain, u32, Vec<String>), Error> {
    let config = Config::load(&options.dir)?;
    let mut chain = config.build_chain(
        options.model_hint,
        options.provider.as_deref(),
        &options.dir,
        None,
    )?;
    if let Some(cassette) = &options.cassette {
        chain = recording(chain, cassette)?;
    }
    Ok((
        chain,
        options.follow_ups.unwrap_or(config.follow_ups),
        config.untrusted_notes(),
    ))
}

/// The chain with every provider wrapped so its replies are appended to `cassette`.
fn recording(chain: Chain, cassette: &Path) -> Result<Chain, Error> {
    let mut wrapped: Vec<Arc<dyn Provider>> = Vec::new();
    for p in chain.providers() {
        let r = Recording::new(Arc::clone(p), cassette).map_err(|source| Error::Cassette {
            path: cassette.to_path_buf(),
            source,
        })?;
        wrapped.push(Arc::new(r));
    }
    Ok(Chain::new(chain.name(), wrapped, chain.retry()))
}
