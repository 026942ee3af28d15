// Renders /openapi.json with the vendored Redoc into #redoc-container, then makes the error-code anchors of
// the guide (`/docs#rate-limited`, written as <a id="..."> in info.description) land where they point: Redoc
// draws the page after the browser has already looked for the fragment, and routes only its own `#section/...`
// and `#operation/...` fragments.
(function () {
  "use strict";
  function scrollToFragment() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) return false;
    // The anchor sits just under its heading: show the whole section (Redoc marks each with data-section-id).
    (target.closest("[data-section-id]") || target).scrollIntoView({ block: "start" });
    // A pixel further, so that Redoc's menu (and the address it writes) marks this section, not the one above.
    window.scrollBy(0, 1);
    return true;
  }
  Redoc.init(
    "openapi.json",
    {
      expandResponses: "200",
      jsonSampleExpandLevel: 3,
      pathInMiddlePanel: true,
      requiredPropsFirst: true,
      theme: {
        typography: {
          fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
          headings: { fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" },
          code: { fontFamily: "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace" },
        },
      },
    },
    document.getElementById("redoc-container"),
    function (error) {
      if (error) {
        document.getElementById("redoc-container").textContent =
          "The API description could not be rendered: " + error;
        return;
      }
      document.body.setAttribute("data-docs-rendered", "true");
      scrollToFragment();
    }
  );
  window.addEventListener("hashchange", scrollToFragment);
})();
