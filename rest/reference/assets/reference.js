// Bootstrap for the storeadmin REST API reference page.
//
// This file is served from the binary itself (see reference.go) so that the
// page works offline and the Content-Security-Policy can stay at
// script-src 'self'. It expects the global Redoc from the standalone bundle
// loaded before it, and reads the document's URL from the data-spec-url
// attribute of the #redoc element.
(function () {
  'use strict';

  var root = document.getElementById('redoc');
  if (!root) {
    return;
  }
  var specUrl = root.getAttribute('data-spec-url') || '/api/v1/openapi.json';

  function showError(message) {
    var p = document.createElement('p');
    p.className = 'reference-message';
    p.textContent = message;
    root.replaceChildren(p);
  }

  if (typeof Redoc === 'undefined') {
    showError('The API reference assets failed to load.');
    return;
  }

  var system = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  Redoc.init(specUrl, {
    // Fonts from the system: the page loads nothing from elsewhere.
    theme: {
      typography: {
        fontFamily: system,
        headings: { fontFamily: system },
        code: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' }
      }
    },
    expandResponses: '200,201',
    jsonSampleExpandLevel: 3,
    requiredPropsFirst: true,
    sortPropsAlphabetically: false,
    pathInMiddlePanel: true
  }, root, function (err) {
    if (err) {
      showError('The API reference could not be rendered: ' + err);
    }
  });
})();
