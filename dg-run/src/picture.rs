//! Pictures of 2D fields: a scalar given per element by modal coefficients, colour-mapped to a PNG (plotters).

use dg_core::triangle::vandermonde;
use plotters::prelude::*;
use std::path::Path;

/// Why a picture could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    /// The field has no finite value.
    #[error("the field has no finite value to draw")]
    Empty,
    /// Writing the file failed.
    #[error("cannot write {path}: {message}")]
    Write {
        /// The file.
        path: String,
        /// What the backend said.
        message: String,
    },
}

/// A scalar field on triangles: per element its vertices and `modes` modal coefficients of degree `order`.
pub struct ModalField<'a> {
    /// Polynomial degree.
    pub order: usize,
    /// Per element: its three vertices (reference vertices (−1,−1), (1,−1), (−1,1)).
    pub vertices: &'a [[[f64; 2]; 3]],
    /// Coefficients, `modes` per element.
    pub coefficients: &'a [f64],
    /// Modes per element.
    pub modes: usize,
}

/// Renders `field` `width` pixels wide (the height follows the domain's aspect ratio) with a perceptual colour
/// map from its smallest to its largest value; returns that range.
pub fn render_png(path: &Path, field: &ModalField<'_>, width: u32) -> Result<(f64, f64), PictureError> {
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for v in field.vertices.iter().flatten() {
        for d in 0..2 {
            lo[d] = lo[d].min(v[d]);
            hi[d] = hi[d].max(v[d]);
        }
    }
    let scale = width as f64 / (hi[0] - lo[0]);
    let height = (((hi[1] - lo[1]) * scale).ceil() as u32).max(1);
    let mut values = vec![f64::NAN; (width * height) as usize];
    for (k, tri) in field.vertices.iter().enumerate() {
        let coeffs = &field.coefficients[k * field.modes..(k + 1) * field.modes];
        let px = tri.map(|v| [(v[0] - lo[0]) * scale, (hi[1] - v[1]) * scale]);
        let det = (px[1][0] - px[0][0]) * (px[2][1] - px[0][1]) - (px[2][0] - px[0][0]) * (px[1][1] - px[0][1]);
        let (x0, x1) =
            (px.iter().map(|p| p[0]).fold(f64::INFINITY, f64::min), px.iter().map(|p| p[0]).fold(0.0, f64::max));
        let (y0, y1) =
            (px.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min), px.iter().map(|p| p[1]).fold(0.0, f64::max));
        for j in (y0.floor().max(0.0) as u32)..(y1.ceil() as u32).min(height) {
            for i in (x0.floor().max(0.0) as u32)..(x1.ceil() as u32).min(width) {
                let (x, y) = (i as f64 + 0.5, j as f64 + 0.5);
                // barycentric coordinates of the pixel centre
                let b = ((x - px[0][0]) * (px[2][1] - px[0][1]) - (px[2][0] - px[0][0]) * (y - px[0][1])) / det;
                let c = ((px[1][0] - px[0][0]) * (y - px[0][1]) - (x - px[0][0]) * (px[1][1] - px[0][1])) / det;
                if b < -1e-9 || c < -1e-9 || b + c > 1.0 + 1e-9 {
                    continue;
                }
                let phi = vandermonde(field.order, &[2.0 * b - 1.0], &[2.0 * c - 1.0]);
                values[(j * width + i) as usize] = (0..field.modes).map(|m| phi[(0, m)] * coeffs[m]).sum();
            }
        }
    }
    let (vmin, vmax) = values
        .iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    if !vmin.is_finite() {
        return Err(PictureError::Empty);
    }
    let write_error = |e: String| PictureError::Write { path: path.display().to_string(), message: e };
    let root = BitMapBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| write_error(e.to_string()))?;
    for j in 0..height {
        for i in 0..width {
            let v = values[(j * width + i) as usize];
            if v.is_finite() {
                let t = if vmax > vmin { (v - vmin) / (vmax - vmin) } else { 0.5 };
                root.draw_pixel((i as i32, j as i32), &colour(t)).map_err(|e| write_error(e.to_string()))?;
            }
        }
    }
    root.present().map_err(|e| write_error(e.to_string()))?;
    Ok((vmin, vmax))
}

/// Renders the cell values of an `nx × ny` grid (row-major, row 0 at the bottom) `width` pixels wide with the colour
/// map from the smallest to the largest value; returns that range.
pub fn render_grid_png(
    path: &Path,
    nx: usize,
    ny: usize,
    values: &[f64],
    width: u32,
) -> Result<(f64, f64), PictureError> {
    let height = ((width as usize * ny).div_ceil(nx.max(1)) as u32).max(1);
    let (vmin, vmax) = values
        .iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    if !vmin.is_finite() || values.len() != nx * ny {
        return Err(PictureError::Empty);
    }
    let write_error = |e: String| PictureError::Write { path: path.display().to_string(), message: e };
    let root = BitMapBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| write_error(e.to_string()))?;
    for py in 0..height {
        for px in 0..width {
            let i = (px as usize * nx / width as usize).min(nx - 1);
            let j = ny - 1 - (py as usize * ny / height as usize).min(ny - 1);
            let v = values[j * nx + i];
            if v.is_finite() {
                let t = if vmax > vmin { (v - vmin) / (vmax - vmin) } else { 0.5 };
                root.draw_pixel((px as i32, py as i32), &colour(t)).map_err(|e| write_error(e.to_string()))?;
            }
        }
    }
    root.present().map_err(|e| write_error(e.to_string()))?;
    Ok((vmin, vmax))
}

/// Draws the profiles `curves` (each a list of (x, y) points, one colour each) in a framed box `width × height`
/// pixels without text (the report prints the ranges); returns the y range drawn.
pub fn render_profile_png(
    path: &Path,
    curves: &[Vec<(f64, f64)>],
    (width, height): (u32, u32),
) -> Result<(f64, f64), PictureError> {
    let points: Vec<(f64, f64)> =
        curves.iter().flatten().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
    if points.is_empty() {
        return Err(PictureError::Empty);
    }
    let range = |f: fn(&(f64, f64)) -> f64| {
        points.iter().map(f).fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)))
    };
    let ((x0, x1), (y0, y1)) = (range(|p| p.0), range(|p| p.1));
    let pad = 0.05 * (y1 - y0).max(1e-12);
    let write_error = |e: String| PictureError::Write { path: path.display().to_string(), message: e };
    let root = BitMapBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| write_error(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .margin(20)
        .build_cartesian_2d(x0..x1.max(x0 + 1e-12), (y0 - pad)..(y1 + pad))
        .map_err(|e| write_error(e.to_string()))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .disable_y_mesh()
        .x_labels(0)
        .y_labels(0)
        .draw()
        .map_err(|e| write_error(e.to_string()))?;
    let palette = [RGBColor(31, 119, 180), RGBColor(214, 39, 40), RGBColor(44, 160, 44), RGBColor(148, 103, 189)];
    for (c, curve) in curves.iter().enumerate() {
        let style = ShapeStyle { color: palette[c % palette.len()].to_rgba(), filled: false, stroke_width: 2 };
        chart.draw_series(LineSeries::new(curve.iter().copied(), style)).map_err(|e| write_error(e.to_string()))?;
    }
    root.present().map_err(|e| write_error(e.to_string()))?;
    Ok((y0, y1))
}

/// The viridis colour map at t ∈ [0, 1], linear between nine anchors.
fn colour(t: f64) -> RGBColor {
    const ANCHORS: [[f64; 3]; 9] = [
        [68.0, 1.0, 84.0],
        [71.0, 44.0, 122.0],
        [59.0, 81.0, 139.0],
        [44.0, 113.0, 142.0],
        [33.0, 144.0, 141.0],
        [39.0, 173.0, 129.0],
        [92.0, 200.0, 99.0],
        [170.0, 220.0, 50.0],
        [253.0, 231.0, 37.0],
    ];
    let x = t.clamp(0.0, 1.0) * (ANCHORS.len() - 1) as f64;
    let i = (x.floor() as usize).min(ANCHORS.len() - 2);
    let f = x - i as f64;
    let c = |d: usize| (ANCHORS[i][d] + f * (ANCHORS[i + 1][d] - ANCHORS[i][d])).round() as u8;
    RGBColor(c(0), c(1), c(2))
}

/// One curve of a line chart: its label, its points, and whether it is drawn dashed.
pub struct Curve {
    /// Legend text.
    pub label: String,
    /// (x, y) points.
    pub points: Vec<(f64, f64)>,
    /// Colour index (curves of one strategy share it).
    pub colour: usize,
    /// Dashed (the second law) or solid.
    pub dashed: bool,
}

/// A line chart with a logarithmic y axis, axis labels and a legend, drawn with the TrueType font at `font`.
pub fn render_line_chart(
    path: &Path,
    font: &[u8],
    title: &str,
    axes: (&str, &str),
    curves: &[Curve],
) -> Result<(), PictureError> {
    let write_err = |e: String| PictureError::Write { path: path.display().to_string(), message: e };
    plotters::style::register_font("sans-serif", FontStyle::Normal, Box::leak(font.to_vec().into_boxed_slice()))
        .map_err(|_| write_err("the font file is not a TrueType font plotters can read".into()))?;
    let points: Vec<(f64, f64)> = curves.iter().flat_map(|c| c.points.iter().copied()).collect();
    let finite: Vec<(f64, f64)> = points.into_iter().filter(|p| p.1.is_finite() && p.1 > 0.0).collect();
    if finite.is_empty() {
        return Err(PictureError::Empty);
    }
    let (x0, x1) = finite.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, y1) = finite.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let root = BitMapBackend::new(path, (1100, 700)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| write_err(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 24))
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d((x0 - 0.3)..(x1 + 0.3), ((y0 * 0.7)..(y1 * 1.4)).log_scale())
        .map_err(|e| write_err(e.to_string()))?;
    chart
        .configure_mesh()
        .x_desc(axes.0)
        .y_desc(axes.1)
        .x_labels(x1 as usize - x0 as usize + 1)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_labels(12)
        .y_label_formatter(&|y| if *y >= 10.0 { format!("{y:.0}") } else { format!("{y:.2}") })
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(|e| write_err(e.to_string()))?;
    let palette = [RGBColor(31, 119, 180), RGBColor(214, 39, 40), RGBColor(44, 160, 44), RGBColor(148, 103, 189)];
    for curve in curves {
        let colour = palette[curve.colour % palette.len()];
        let style = ShapeStyle { color: colour.to_rgba(), filled: false, stroke_width: 2 };
        let pts: Vec<(f64, f64)> = curve.points.iter().copied().filter(|p| p.1.is_finite() && p.1 > 0.0).collect();
        let series = if curve.dashed {
            // dashes: every other segment
            let segments: Vec<Vec<(f64, f64)>> = pts
                .windows(2)
                .flat_map(|w| {
                    let (a, b) = (w[0], w[1]);
                    (0..6).step_by(2).map(move |i| {
                        let at = |t: f64| (a.0 + (b.0 - a.0) * t, a.1 * (b.1 / a.1).powf(t));
                        vec![at(i as f64 / 6.0), at((i + 1) as f64 / 6.0)]
                    })
                })
                .collect();
            for s in segments {
                chart.draw_series(LineSeries::new(s, style)).map_err(|e| write_err(e.to_string()))?;
            }
            chart.draw_series(pts.iter().map(|&p| TriangleMarker::new(p, 6, colour.filled())))
        } else {
            chart.draw_series(LineSeries::new(pts.clone(), style)).map_err(|e| write_err(e.to_string()))?;
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 5, colour.filled())))
        };
        series.map_err(|e| write_err(e.to_string()))?.label(curve.label.clone()).legend(move |(x, y)| {
            PathElement::new(
                vec![(x, y), (x + 20, y)],
                ShapeStyle { color: colour.to_rgba(), filled: false, stroke_width: 2 },
            )
        });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 16))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| write_err(e.to_string()))?;
    root.present().map_err(|e| write_err(e.to_string()))?;
    Ok(())
}
