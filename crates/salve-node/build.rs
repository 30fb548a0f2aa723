// The addon's link arguments (undefined N-API symbols resolved by node at load time). Only for
// the addon: the plain workspace build has nothing to link.
fn main() {
    if std::env::var_os("CARGO_FEATURE_NODE").is_some() {
        napi_build::setup();
    }
}
