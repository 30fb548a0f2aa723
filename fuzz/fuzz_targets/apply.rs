//! libFuzzer target: parser and placement ladder on an arbitrary file and reply.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    salve_fuzz::apply(data);
});
