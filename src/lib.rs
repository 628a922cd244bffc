//! dg facade
