//! libFuzzer target: the reply parser on arbitrary text.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    salve_fuzz::parse(data);
});
