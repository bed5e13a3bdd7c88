//! The one chart the CLI draws (`--svg`): percentages of runs against an error rate, a line per
//! series, with a legend in two columns below.

use std::fmt::Write as _;

/// One line of the chart.
pub struct Series {
    pub name: String,
    pub colour: &'static str,
    /// SVG `stroke-dasharray` ("" for a solid line).
    pub dash: &'static str,
    pub width: u32,
    /// (error rate, percent) pairs.
    pub points: Vec<(f64, f64)>,
}

/// The chart's frame: its title, size, bottom margin (the legend sits in it) and the width of
/// a legend column.
pub struct Frame<'a> {
    pub title: &'a str,
    pub size: (f64, f64),
    pub bottom: f64,
    pub legend_column: f64,
}

/// `a` as a percentage of `b` (0 when `b` is 0).
pub fn pct(a: u32, b: u32) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * f64::from(a) / f64::from(b)
    }
}

/// The chart as an SVG document.
pub fn svg(frame: &Frame<'_>, series: &[Series]) -> String {
    let (w, h) = frame.size;
    let (left, right, top) = (50.0, 30.0, 40.0);
    let (pw, ph) = (w - left - right, h - top - frame.bottom);
    let mut rates: Vec<f64> = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    let max_p = rates.iter().copied().fold(0.0f64, f64::max).max(1e-9);
    let x = |p: f64| left + pw * p / max_p;
    let y = |v: f64| top + ph * (1.0 - v / 100.0);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="13" font-weight="bold">{}</text>"#,
        w / 2.0,
        frame.title
    );
    for v in [0.0, 25.0, 50.0, 75.0, 100.0] {
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#ddd"/><text x="{2:.1}" y="{3:.1}" text-anchor="end">{v}%</text>"##,
            y(v),
            left + pw,
            left - 6.0,
            y(v) + 4.0
        );
    }
    for p in &rates {
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{p}</text>"#,
            x(*p),
            top + ph + 16.0
        );
    }
    for (i, line) in series.iter().enumerate() {
        let (colour, dash, name) = (line.colour, line.dash, &line.name);
        let pts: Vec<String> = line.points.iter().map(|&(p, v)| format!("{:.1},{:.1}", x(p), y(v))).collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="{}" stroke-dasharray="{dash}"/>"#,
            pts.join(" "),
            line.width
        );
        for &(p, v) in &line.points {
            let _ = writeln!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"><title>{name}: {v:.1}% at p = {p}</title></circle>"#,
                x(p),
                y(v)
            );
        }
        let lx = left + frame.legend_column * (i % 2) as f64;
        let ly = h - frame.bottom + 40.0 + 16.0 * (i / 2) as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/><text x="{}" y="{}">{name}</text>"#,
            lx + 24.0,
            lx + 30.0,
            ly + 4.0
        );
    }
    s.push_str("</svg>\n");
    s
}
