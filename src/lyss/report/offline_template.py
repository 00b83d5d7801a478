"""The HTML template `dvc plots show` fills (.dvc/plots/offline.html), with Vega inlined.

DVC's own page loads Vega, Vega-Lite and vega-embed from a CDN, so offline (this project's default) every
Vega plot is blank. The template DVC accepts (`plots.html_template` in .dvc/config) has a `{plot_divs}`
placeholder and usually a `{scripts}` one that DVC fills with those CDN tags; ours leaves `{scripts}` out and
carries the three libraries inline instead, so the page works from a USB stick.

The libraries are the npm packages, vendored once with their licences (.dvc/plots/LICENSES.txt). To update:

    npm install vega@5 vega-lite@5 vega-embed@6      # in any scratch folder
    python -m lyss.report.offline_template node_modules
"""

import argparse
import json
import sys
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parents[3] / ".dvc/plots/offline.html"
# The UMD builds, in load order: vega-embed needs the other two as globals.
LIBRARIES = (("vega", "build/vega.min.js"), ("vega-lite", "build/vega-lite.min.js"),
             ("vega-embed", "build/vega-embed.min.js"))
# DVC replaces these by plain string substitution over the whole page, library code included.
DVC_PLACEHOLDERS = ("{plot_divs}", "{scripts}", "{refresh_tag}")

PAGE = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
{refresh_tag}
<title>LYSS plots</title>
<!-- {versions}: inlined (licences in .dvc/plots/LICENSES.txt) so that this page needs no network.
     Built by python -m lyss.report.offline_template. -->
<style>
body { font-family: system-ui, sans-serif; margin: 1rem; }
table { border-spacing: 15px; }
</style>
{libraries}
</head>
<body>
{plot_divs}
</body>
</html>
"""


def library_script(node_modules: Path, package: str, build: str) -> tuple[str, str]:
    """The package's version and its minified build as one inline <script> element."""
    version = json.loads((node_modules / package / "package.json").read_text(encoding="utf-8"))["version"]
    code = (node_modules / package / build).read_text(encoding="utf-8")
    clash = [p for p in (*DVC_PLACEHOLDERS, "</script") if p in code]
    if clash:
        raise SystemExit(f"{node_modules / package / build}: contains {clash[0]!r}, which would break the page")
    return version, f"<script>/* {package} {version} */\n{code}\n</script>"


def build_page(node_modules: Path) -> str:
    versions, scripts = [], []
    for package, build in LIBRARIES:
        version, script = library_script(node_modules, package, build)
        versions.append(f"{package} {version}")
        scripts.append(script)
    # plain substitution, not str.format: the placeholders DVC fills stay literal, the library code untouched
    return PAGE.replace("{versions}", ", ".join(versions)).replace("{libraries}", "\n".join(scripts))


def licences(node_modules: Path) -> str:
    """Every licence in node_modules: the three builds bundle d3 and a few other small packages. The vega package
    itself ships no LICENSE file; its package.json says BSD-3-Clause: the text of vega-canvas (same authors)."""
    parts = []
    for folder in sorted(p for p in node_modules.iterdir() if p.is_dir() and not p.name.startswith((".", "@"))):
        text = folder / "LICENSE"
        if folder.name == "vega" and not text.exists():
            text = node_modules / "vega-canvas/LICENSE"
        if text.exists():
            meta = json.loads((folder / "package.json").read_text(encoding="utf-8"))
            parts.append(f"== {meta['name']} {meta['version']} ({meta.get('license', '?')}) ==\n"
                         f"{text.read_text(encoding='utf-8').strip()}\n")
    return "\n".join(parts)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lyss.report.offline_template", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("node_modules", type=Path, help="a node_modules folder holding vega, vega-lite, vega-embed")
    parser.add_argument("--out", type=Path, default=TEMPLATE)
    args = parser.parse_args(argv)
    args.out.write_text(build_page(args.node_modules), encoding="utf-8")
    (args.out.parent / "LICENSES.txt").write_text(licences(args.node_modules), encoding="utf-8")
    print(f"wrote {args.out} and its LICENSES.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
