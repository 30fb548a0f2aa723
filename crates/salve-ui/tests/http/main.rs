//! salve ui over real HTTP on 127.0.0.1: every route, and every security point (token, Host,
//! same-origin POSTs, no CORS, escaping of model text).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod reading;
mod restore_undo;
mod routes;
mod security;
mod support;
