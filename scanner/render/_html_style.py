"""The HTML report's one stylesheet (inline: the page loads nothing)."""

from __future__ import annotations

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2em auto;max-width:1200px;
color:#1b1b1b;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:1.8em}
h3{margin:1.2em 0 .4em}.meta,.note,.empty{color:#555}
table{border-collapse:collapse;width:100%;margin:.4em 0 1em}th,td{border:1px solid #ddd;padding:3px 6px;
text-align:left;vertical-align:top}th{background:#f4f4f4}code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;
font-size:.92em;word-break:break-all}
.sev{font-weight:600;border-radius:3px;padding:1px 6px;color:#fff;white-space:nowrap}.sev-high{background:#b00020}
.sev-medium{background:#c75c00}.sev-low{background:#8a6d00}.sev-info{background:#4a6fa5}
.badge{border-radius:8px;padding:0 7px;font-size:.85em;border:1px solid #bbb;background:#eee;white-space:nowrap}
.st-active{background:#e3f4e6}.st-deprecated{background:#fff1c2}.st-retired{background:#f9d4d4}
.no{color:#777}svg text{font:11px system-ui,sans-serif}svg .axis{stroke:#888}svg .tick{fill:#555}
svg .edge{fill:none;stroke:#8895a7;stroke-width:1.4}svg .node{stroke:#aaa}svg rect.vendor+text{fill:#fff}
.figure{overflow-x:auto;margin:.5em 0 1em;max-width:100%}.scroll{overflow-x:auto;max-width:100%}
td{overflow-wrap:break-word}.ignored{color:#666;text-decoration:line-through}
.sev-ignored{background:#777}
.headline li{margin:.1em 0}.headline>li{font-weight:600}
.headline.plain>li{font-weight:400}.headline>li li{font-weight:400}
svg rect.never{stroke:#888;stroke-dasharray:3 2}svg rect.never+text{fill:#333}
/* the finding says what is wrong: it gets the room; a long path wraps rather than squeezing it */
.first code{word-break:normal;overflow-wrap:anywhere}.findings td:nth-child(2){width:55%}
code.host{word-break:normal;overflow-wrap:normal}th{white-space:nowrap}.fid{color:#555;font-size:.85em}
@media print{body{margin:0;max-width:none;font-size:11px}h2{break-after:avoid}tr,svg{break-inside:avoid}
.sev{color:#000;border:1px solid #000;background:none}}
"""
