//! HTML building blocks: escaping, tables with sortable columns and
//! colour-coded errors, the page shell (inline CSS, a few lines of inline
//! script, a Content-Security-Policy that forbids every request).

use std::fmt::Write;

pub use aesflow_chart::esc;

/// One table cell: its HTML, a numeric sort key, a CSS class.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cell {
    /// Inner HTML (already escaped).
    pub html: String,
    /// Sort key for numeric columns.
    pub sort: Option<f64>,
    /// CSS class (`err-ok`, `err-mid`, `err-bad`, `num`, …).
    pub class: &'static str,
}

impl Cell {
    /// Text (escaped).
    pub fn text(s: impl AsRef<str>) -> Cell {
        Cell {
            html: esc(s.as_ref()),
            sort: None,
            class: "",
        }
    }
    /// A number with `prec` decimals (`-` when not finite).
    pub fn num(v: f64, prec: usize) -> Cell {
        if !v.is_finite() {
            return Cell::text("-");
        }
        Cell {
            html: format!("{v:.prec$}"),
            sort: Some(v),
            class: "num",
        }
    }
    /// An optional number.
    pub fn opt(v: Option<f64>, prec: usize) -> Cell {
        v.map_or_else(|| Cell::text("-"), |v| Cell::num(v, prec))
    }
    /// A relative error (model / paper − 1), colour-coded: within 5%
    /// green, within 15% amber, else red.
    pub fn err(e: Option<f64>) -> Cell {
        match e {
            Some(e) if e.is_finite() => Cell {
                html: format!("{:+.1}%", 100.0 * e),
                sort: Some(e),
                class: err_class(e),
            },
            _ => Cell::text("-"),
        }
    }
}

/// The CSS class of a relative error.
pub fn err_class(e: f64) -> &'static str {
    let a = e.abs();
    if a <= 0.05 {
        "num err-ok"
    } else if a <= 0.15 {
        "num err-mid"
    } else {
        "num err-bad"
    }
}

/// A table: caption, headers (with an optional explanation shown on hover
/// and in the legend), rows.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// `id` of the `<table>`.
    pub id: String,
    /// Caption.
    pub caption: String,
    /// `(header, explanation)`.
    pub headers: Vec<(String, String)>,
    /// Rows.
    pub rows: Vec<Vec<Cell>>,
    /// Extra legend lines under the table.
    pub notes: Vec<String>,
}

impl Table {
    /// A table with headers given as `(name, explanation)` pairs.
    pub fn new(id: &str, caption: &str, headers: &[(&str, &str)]) -> Table {
        Table {
            id: id.into(),
            caption: caption.into(),
            headers: headers
                .iter()
                .map(|(h, e)| (h.to_string(), e.to_string()))
                .collect(),
            rows: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Render: a sortable `<table>` and a legend explaining every
    /// abbreviated header.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<div class="tablewrap"><table id="{}" class="data sortable"><caption>{}</caption><thead><tr>"#,
            esc(&self.id),
            esc(&self.caption)
        );
        for (h, e) in &self.headers {
            if e.is_empty() {
                let _ = write!(s, "<th>{}</th>", esc(h));
            } else {
                let _ = write!(s, r#"<th title="{}">{}</th>"#, esc(e), esc(h));
            }
        }
        s.push_str("</tr></thead><tbody>\n");
        for r in &self.rows {
            s.push_str("<tr>");
            for c in r {
                let sort = c
                    .sort
                    .map_or(String::new(), |v| format!(r#" data-sort="{v}""#));
                let class = if c.class.is_empty() {
                    String::new()
                } else {
                    format!(r#" class="{}""#, c.class)
                };
                let _ = write!(s, "<td{class}{sort}>{}</td>", c.html);
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</tbody></table>");
        let explained: Vec<String> = self
            .headers
            .iter()
            .filter(|(_, e)| !e.is_empty())
            .map(|(h, e)| format!("<b>{}</b>: {}", esc(h), esc(e)))
            .collect();
        if !explained.is_empty() || !self.notes.is_empty() {
            s.push_str(r#"<p class="legend">"#);
            s.push_str(&explained.join("; "));
            for n in &self.notes {
                let _ = write!(s, "<br>{n}");
            }
            s.push_str("</p>");
        }
        s.push_str("</div>\n");
        s
    }
}

/// A figure: inline SVG and a caption.
pub fn figure(id: &str, svg: &str, caption: &str) -> String {
    format!(
        "<figure id=\"{}\" class=\"chart\">{}<figcaption>{}</figcaption></figure>\n",
        esc(id),
        strip_xml_decl(svg),
        caption
    )
}

fn strip_xml_decl(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    }
}

const CSS: &str = r#"
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
main{max-width:1180px;margin:0 auto;padding:8px 24px 48px;background:#fff;overflow-wrap:break-word}
code{overflow-wrap:anywhere}
h1{font-size:1.7em;margin:.6em 0 .2em}h2{border-bottom:2px solid #ddd;padding-top:.6em}
nav ol{columns:2;font-size:.95em}
.meta{color:#555;font-size:.92em}
.tablewrap{overflow-x:auto;max-width:100%;margin:.8em 0 1.4em}
table.data{border-collapse:collapse;font-size:.88em}
table.data caption{text-align:left;font-weight:600;padding:.3em 0}
table.data th,table.data td{border-bottom:1px solid #e4e4e4;padding:3px 8px;white-space:nowrap}
table.data th{background:#f1f3f5;cursor:default}
table.data td:first-child,table.data th:first-child{position:sticky;left:0;background:#fff;z-index:1}
table.data th:first-child{background:#f1f3f5}
td.over{background:#f9d2d0;font-weight:600}
table.data th[title]{text-decoration:underline dotted}
.js table.sortable th{cursor:pointer}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.err-ok{background:#d9f2d9}.err-mid{background:#fff1c2}.err-bad{background:#f9d2d0}
.legend{font-size:.85em;color:#444;max-width:1100px}
.key span{padding:1px 6px;margin-right:6px}
figure.chart{margin:1em 0;overflow-x:auto;max-width:100%}figure svg{max-width:100%;height:auto}
figcaption{font-size:.88em;color:#444}
details{margin:.4em 0;border:1px solid #e4e4e4;border-radius:4px;padding:.3em .6em}
summary{cursor:pointer;font-weight:600}
.map,.graph{overflow-x:auto;max-width:100%;margin:.4em 0 1em}
.map svg{max-width:100%;height:auto}
.graph svg{max-width:none;height:auto}
code,pre{background:#f3f3f3;padding:1px 4px;border-radius:3px}
pre{padding:8px;overflow-x:auto}
@media (max-width:760px){
 main{padding:4px 10px 32px}
 nav ol{columns:1}
 table.data{font-size:.8em}
 table.data th,table.data td{padding:2px 5px}
 table.data td:first-child{white-space:normal;min-width:8em;max-width:11em}
 figure svg,.map svg{max-width:none}
}
"#;

/// The inline script: sortable tables (click a header) and, with
/// `?selftest` in the URL, a JSON summary of the page for the test
/// (tables and their rows, drawn SVG elements and the scale they are drawn
/// at, the page's width and anything wider than the screen, requests
/// made). `?width=N` lays the page out N px wide (the root element's
/// width): headless Chromium opens no window narrower than 500 px, and
/// the test checks 420.
const SCRIPT: &str = r#"
document.documentElement.classList.add('js');
var fixedW=/[?&]width=(\d+)/.exec(location.search);
if(fixedW){document.documentElement.style.width=fixedW[1]+'px';}
document.querySelectorAll('table.sortable th').forEach(function(th){th.addEventListener('click',function(){
 var t=th.closest('table'),b=t.tBodies[0],i=Array.prototype.indexOf.call(th.parentNode.children,th),asc=th.dataset.dir!=='asc';
 th.dataset.dir=asc?'asc':'desc';
 var k=function(r){var c=r.children[i];if(!c)return '';var v=c.dataset.sort;return v!==undefined?parseFloat(v):c.textContent;};
 Array.prototype.slice.call(b.rows).sort(function(x,y){var a=k(x),c=k(y);var r=(typeof a==='number'&&typeof c==='number')?a-c:String(a).localeCompare(String(c));return asc?r:-r;}).forEach(function(r){b.appendChild(r);});
});});
if(location.search.indexOf('selftest')>=0){
 document.querySelectorAll('details').forEach(function(d){d.open=true;});
 var vw=fixedW?+fixedW[1]:document.documentElement.clientWidth;
 var free=Array.prototype.filter.call(document.querySelectorAll('body *'),function(e){return !e.closest('.tablewrap,figure,.map,.graph,pre');});
 var pageW=free.reduce(function(m,e){return Math.max(m,e.getBoundingClientRect().right);},document.body.scrollWidth);
 var wide=free.filter(function(e){return e.getBoundingClientRect().right>vw+1;}).slice(0,10).map(function(e){return e.tagName+'#'+(e.id||'')+'.'+e.className;});
 var tables=Array.prototype.map.call(document.querySelectorAll('table.data'),function(t){return {id:t.id,rows:t.tBodies[0]?t.tBodies[0].rows.length:0};});
 var svgs=Array.prototype.map.call(document.querySelectorAll('svg'),function(s){var r=s.getBoundingClientRect();var nat=parseFloat(s.getAttribute('width'))||r.width;var box=s.parentNode.getBoundingClientRect();return {id:(s.closest('[id]')||{}).id||'',marks:s.querySelectorAll('rect,circle,line,polyline,path,text').length,w:r.width,h:r.height,scale:r.width/nat,box_right:box.right};});
 var res=performance.getEntriesByType('resource').map(function(e){return e.name;});
 var pre=document.createElement('pre');pre.id='selftest';pre.textContent=JSON.stringify({tables:tables,svgs:svgs,requests:res,page_w:pageW,view_w:vw,wide:wide});document.body.appendChild(pre);
}
"#;

/// The whole page around `body`.
pub fn page(title: &str, body: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{}</title><style>{CSS}</style></head>
<body><main>
{body}
</main><script>{SCRIPT}</script></body></html>
"#,
        esc(title)
    )
}
