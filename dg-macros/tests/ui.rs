//! Compile-time errors of `#[conservation_law]`: each wrong input in `tests/ui/` must fail with the message
//! (span and hint) recorded beside it. The cases need the macro alone (every one is refused before any generated
//! code refers to dg's crates), so trybuild checks only this crate and its three dependencies.

#[test]
fn wrong_law_definitions_are_rejected_with_clear_errors() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
