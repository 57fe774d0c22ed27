// Writes the demo's pages: each `*.html` of the source folder is the body of one page (from its
// header's title on), opening with a line `<!-- page title="..." script="..." current="..."
// [chart] -->`; it is set into `layout.html`, the head and navigation every page shares, with
// the navigation's current page marked and uPlot's stylesheet linked where the page draws a
// chart. A listing page (a form of filters, and a table of results that listing.js fills and
// pages) ends its header with `<!-- listing table="..." heading="..." caption="..." empty="..."
// pager="..." previous="..." next="..." -->`, the form's fields, `<!-- columns -->`, the
// table's column headers and `<!-- /listing -->`; that is set into `listing.part.html`, the one
// markup listing.js works on. A line `<!-- include NAME.part.html -->` stands for that file (a
// control two pages share). Files named `*.part.html` are parts, not pages.
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
const LISTING = "listing.part.html";
const LISTING_ATTRS = ["table", "heading", "caption", "empty", "pager", "previous", "next"];

const [from, to] = process.argv.slice(2);
if (!from || !to) {
  console.error("usage: node web-demo/pages.mjs SOURCE_DIR OUT_DIR");
  process.exit(2);
}
const layout = readFileSync(join(from, LAYOUT), "utf8");
const listing = readFileSync(join(from, LISTING), "utf8");

// The attributes of a comment line, `name="value"` or a bare `name` (true); each of `required`
// must be given a value.
function attributes(name, what, text, required) {
  const attrs = Object.fromEntries([...text.matchAll(/(\w+)(?:="([^"]*)")?/g)].map((m) => [m[1], m[2] ?? true]));
  for (const key of required) {
    if (typeof attrs[key] !== "string") throw new Error(`${name}: the ${what} line lacks ${key}="..."`);
  }
  return attrs;
}

// Sets `fill`'s values into `template`'s {placeholders} in one pass, so that a value's own text
// is never read as a placeholder.
function fillIn(template, fill) {
  return template.replace(/\{(\w+)\}/g, (whole, key) => fill[key] ?? whole);
}

const isPage = (n) => n.endsWith(".html") && !n.endsWith(".part.html") && n !== LAYOUT;

for (const name of readdirSync(from).filter(isPage)) {
  const text = readFileSync(join(from, name), "utf8").replace(
    /^<!-- include ([\w-]+\.part\.html) -->\n/gm, (whole, part) => readFileSync(join(from, part), "utf8"));
  const match = /^<!-- page ([^\n]*) -->\n/.exec(text);
  if (!match) throw new Error(`${name}: the first line must be <!-- page title="..." script="..." current="..." -->`);
  const attrs = attributes(name, "page", match[1], ["title", "script", "current"]);
  const links = PAGES.map(([href, label]) =>
    `        <a href="${href}"${href === attrs.current ? ' aria-current="page"' : ""}>${label}</a>\n`).join("");
  const fill = {
    title: attrs.title,
    script: attrs.script,
    styles: attrs.chart ? '  <link rel="stylesheet" href="vendor/uPlot.min.css">\n' : "",
    links,
    body: text.slice(match[0].length).replace(
      /^<!-- listing ([^\n]*) -->\n([\s\S]*?)^<!-- columns -->\n([\s\S]*?)^<!-- \/listing -->\n/m,
      (whole, line, filters, columns) =>
        fillIn(listing, { ...attributes(name, "listing", line, LISTING_ATTRS), filters, columns })),
  };
  writeFileSync(join(to, name), fillIn(layout, fill));
}
