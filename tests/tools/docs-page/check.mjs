// Opens a live server's /docs in headless Chromium (Debian's, driven by puppeteer-core) and checks what a
// reader sees: the page renders from /openapi.json with no request leaving the server, every operation of the
// document has its section, every error anchor that error bodies link to exists and brings its section into
// view, and screenshots are kept as test artifacts. Run by tests/tools/docs-page.sh, which starts the server.
//
// usage: node check.mjs BASE_URL ARTIFACT_DIR ANCHOR...   (env CHROMIUM: the browser binary)
import { mkdirSync } from "node:fs";
import puppeteer from "puppeteer-core";

const [base, artifacts, ...anchors] = process.argv.slice(2);
if (!base || !artifacts || anchors.length === 0) {
  console.error("usage: node check.mjs BASE_URL ARTIFACT_DIR ANCHOR...");
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });
const origin = new URL(base).origin;
const failures = [];
const fail = (message) => {
  failures.push(message);
  console.error(`FAIL ${message}`);
};

const spec = await (await fetch(`${base}/openapi.json`)).json();
const operations = [];
for (const [path, item] of Object.entries(spec.paths)) {
  for (const method of ["get", "head", "post", "put", "patch", "delete", "options"]) {
    if (item[method]) operations.push({ path, method, op: item[method] });
  }
}

// The first string of at least three characters in a JSON value (depth first), as the page would print it.
function firstString(value) {
  if (typeof value === "string") return value.length >= 3 ? value : undefined;
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) {
      const found = firstString(v);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

// A new tab whose requests, script errors and console errors are checked.
async function watched(browser) {
  const page = await browser.newPage();
  page.on("request", (req) => {
    const url = req.url();
    if (!url.startsWith("data:") && !url.startsWith("blob:") && new URL(url).origin !== origin) {
      fail(`the page requested ${url}, outside the server`);
    }
  });
  page.on("requestfailed", (req) => fail(`request failed: ${req.url()} (${req.failure()?.errorText})`));
  page.on("pageerror", (err) => fail(`script error on the page: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") fail(`console error: ${msg.text()}`);
  });
  return page;
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  // --no-sandbox: CI runs as root. The resolver rule makes any name but the server's unreachable, so a page
  // that needed a CDN would fail here rather than quietly fetch it.
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
  defaultViewport: { width: 1440, height: 1000 },
});
try {
  const page = await watched(browser);

  const started = Date.now();
  const resp = await page.goto(`${base}/docs`, { waitUntil: "domcontentloaded" });
  if (resp.status() !== 200) fail(`/docs answered ${resp.status()}`);
  await page.waitForSelector("body[data-docs-rendered=true]", { timeout: 90_000 });
  console.log(`rendered in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await page.screenshot({ path: `${artifacts}/docs.png` });

  // Every operation: Redoc gives each a section whose data-section-id is `operation/<operationId>` or, without
  // an operationId, `tag/<tag>/paths/<json-pointer-escaped path>/<method>`; the section shows the path.
  const sections = await page.$$eval("[data-section-id]", (els) =>
    els.map((e) => ({ id: e.getAttribute("data-section-id"), text: e.textContent })),
  );
  const byId = new Map(sections.map((s) => [s.id, s.text]));
  const sectionIds = (path, method, op) => {
    const escaped = path.replace(/~/g, "~0").replace(/\//g, "~1");
    return op.operationId
      ? [`operation/${op.operationId}`]
      : (op.tags || ["default"]).map((t) => `tag/${t}/paths/${escaped}/${method}`);
  };
  const sectionText = (path, method, op) =>
    sectionIds(path, method, op).map((id) => byId.get(id)).find((t) => t !== undefined);
  for (const { path, method, op } of operations) {
    const text = sectionText(path, method, op);
    if (text === undefined) {
      fail(`${method.toUpperCase()} ${path}: no rendered section (${sectionIds(path, method, op).join(" or ")})`);
    } else if (!text.includes(path)) {
      fail(`${method.toUpperCase()} ${path}: its section does not show the path`);
    } else if (op.summary && !text.includes(op.summary)) {
      fail(`${method.toUpperCase()} ${path}: summary not shown`);
    }
  }
  console.log(`${operations.length} operations of /openapi.json rendered`);

  // Where an operation documents a response example, its rendered response sample shows it: a string value
  // from the example (the examples are real responses, so they hold such values) appears in the section.
  let withExamples = 0;
  for (const { path, method, op } of operations) {
    const media = op.responses?.["200"]?.content?.["application/json"];
    const example = media?.example ?? Object.values(media?.examples ?? {})[0]?.value;
    if (example === undefined) continue;
    withExamples += 1;
    const needle = firstString(example);
    const text = sectionText(path, method, op) ?? "";
    if (needle !== undefined && !text.includes(needle)) {
      fail(`${method.toUpperCase()} ${path}: the response example (${JSON.stringify(needle)}) is not shown`);
    }
  }
  console.log(`${withExamples} operations document a response example; each is shown`);

  // Every error anchor exists, and following it (as a click on an error body's `docs` link does) brings it
  // into view.
  for (const anchor of anchors) {
    const inView = await page.evaluate(async (id) => {
      if (!document.getElementById(id)) return "missing";
      window.location.hash = id;
      await new Promise((r) => setTimeout(r, 50));
      const box = document.getElementById(id).getBoundingClientRect();
      return box.top >= 0 && box.top < window.innerHeight ? "visible" : `off-screen (top ${box.top})`;
    }, anchor);
    if (inView !== "visible") fail(`#${anchor}: ${inView}`);
  }
  console.log(`${anchors.length} error anchors checked: ${anchors.join(" ")}`);

  // A fresh load of an error link (the common case: a link opened from an error body) lands on its section.
  const deep = await watched(browser);
  await deep.goto(`${base}/docs#rate-limited`, { waitUntil: "domcontentloaded" });
  await deep.waitForSelector("body[data-docs-rendered=true]", { timeout: 90_000 });
  const [landed, hash] = await deep.evaluate(() => {
    const box = document.getElementById("rate-limited")?.getBoundingClientRect();
    return [box && box.top >= 0 && box.top < window.innerHeight, window.location.hash];
  });
  if (!landed) fail("/docs#rate-limited opened fresh does not show the rate-limited section");
  // Redoc rewrites the address to the section it marks in its menu: it must be this one, not its neighbour.
  if (!hash.endsWith("rate-limited")) fail(`/docs#rate-limited opened fresh marks another section: ${hash}`);
  await deep.screenshot({ path: `${artifacts}/docs-rate-limited.png` });
} finally {
  await browser.close();
}

if (failures.length) {
  console.error(`${failures.length} docs page check(s) failed`);
  process.exit(1);
}
console.log(`docs page ok; screenshots in ${artifacts}`);
