//! The tensor cores' tf32 operand format, as generated kernels split f32 values for three-product emulation of an
//! f32 product (x = x_hi + x_lo, each part rounded to tf32: A_lo·B_hi + A_hi·B_lo + A_hi·B_hi keeps f32 accuracy).

/// `x` rounded to the tensor cores' tf32 format (8 exponent bits, 10 stored mantissa bits; to nearest, ties away
/// from zero, as `cvt.rna.tf32.f32`), as an f32.
pub fn tf32_round(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    f32::from_bits(x.to_bits().wrapping_add(0x1000) & 0xffff_e000)
}

/// `x` (rounded to f32) as its high tf32 part and the rest rounded to tf32.
pub fn tf32_split(x: f64) -> (f32, f32) {
    let high = tf32_round(x as f32);
    (high, tf32_round((x - high as f64) as f32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_keeps_f32_accuracy_and_one_part_does_not() {
        for x in [1.0 / 3.0, -2.5173, 1e-7 * std::f64::consts::PI, 12345.678] {
            let (high, low) = tf32_split(x);
            assert_eq!(high.to_bits() & 0x1fff, 0, "{x}: high part has more than 10 mantissa bits");
            assert_eq!(low.to_bits() & 0x1fff, 0, "{x}: low part has more than 10 mantissa bits");
            let rel = ((high as f64 + low as f64) - x).abs() / x.abs();
            assert!(rel < 2e-7, "{x}: split off by {rel:e}");
            assert!(((high as f64) - x).abs() / x.abs() > 1e-5, "{x}: the high part alone should be tf32-coarse");
        }
        assert_eq!(tf32_round(f32::INFINITY), f32::INFINITY);
        assert!(tf32_round(f32::NAN).is_nan());
        // ties away from zero: 1 + 2^-11 (half an ulp of tf32) rounds up
        assert_eq!(tf32_round(1.0 + 2f32.powi(-11)), 1.0 + 2f32.powi(-10));
    }
}
