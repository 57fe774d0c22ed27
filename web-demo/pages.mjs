// Writes the demo's pages: each `*.html` of the source folder is the body of one page (from its
// header's title on), opening with a line `<!-- page title="..." script="..." current="..."
// [chart] -->`; it is set into `layout.html`, the head and navigation every page shares, with
// the navigation's current page marked and uPlot's stylesheet linked where the page draws a
// chart.
//
//   node web-demo/pages.mjs web-demo/www web-demo/dist   (run by scripts/build-web-demo.sh)

import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// The navigation, in order: where each link goes and what it says.
const PAGES = [
  ["models.html", "Models"],
  ["changes.html", "Changes"],
  ["./", "Calculator"],
];
const LAYOUT = "layout.html";

const [from, to] = process.argv.slice(2);
if (!from || !to) {
  console.error("usage: node web-demo/pages.mjs SOURCE_DIR OUT_DIR");
  process.exit(2);
}
const layout = readFileSync(join(from, LAYOUT), "utf8");

for (const name of readdirSync(from).filter((n) => n.endsWith(".html") && n !== LAYOUT)) {
  const text = readFileSync(join(from, name), "utf8");
  const match = /^<!-- page ([^\n]*) -->\n/.exec(text);
  if (!match) throw new Error(`${name}: the first line must be <!-- page title="..." script="..." current="..." -->`);
  const attrs = Object.fromEntries([...match[1].matchAll(/(\w+)(?:="([^"]*)")?/g)].map((m) => [m[1], m[2] ?? true]));
  for (const required of ["title", "script", "current"]) {
    if (typeof attrs[required] !== "string") throw new Error(`${name}: the page line lacks ${required}="..."`);
  }
  const links = PAGES.map(([href, label]) =>
    `      <a href="${href}"${href === attrs.current ? ' aria-current="page"' : ""}>${label}</a>\n`).join("");
  const fill = {
    title: attrs.title,
    script: attrs.script,
    styles: attrs.chart ? '  <link rel="stylesheet" href="vendor/uPlot.min.css">\n' : "",
    links,
    body: text.slice(match[0].length),
  };
  // One pass, so a page's own text is never read as a placeholder.
  writeFileSync(join(to, name), layout.replace(/\{(\w+)\}/g, (whole, key) => fill[key] ?? whole));
}
