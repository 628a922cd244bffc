//! Compile-time errors of `#[conservation_law]`: each wrong input in `tests/ui/` must fail with the message
//! (span and hint) recorded beside it.

#[test]
fn wrong_law_definitions_are_rejected_with_clear_errors() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
