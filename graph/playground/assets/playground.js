// Bootstrap for the storeadmin GraphiQL page.
//
// This file is served from the binary itself (see playground.go) so that the
// page works offline and the Content-Security-Policy can stay at
// script-src 'self'. It expects the globals React, ReactDOM and GraphiQL
// from the UMD builds loaded before it, and reads the GraphQL endpoint from
// the data-endpoint attribute of the #graphiql element.
(function () {
  'use strict';

  var root = document.getElementById('graphiql');
  if (!root) {
    return;
  }
  var endpoint = root.getAttribute('data-endpoint') || '/graphql';

  function showError(message) {
    var p = document.createElement('p');
    p.className = 'playground-message';
    p.textContent = message;
    root.replaceChildren(p);
  }

  if (typeof React === 'undefined' || typeof ReactDOM === 'undefined' ||
      typeof GraphiQL === 'undefined') {
    showError('The GraphiQL assets failed to load.');
    return;
  }

  var hasOwn = Object.prototype.hasOwnProperty;

  // fetcher posts the operation as JSON to the endpoint, adding the headers
  // from GraphiQL's header editor (GraphiQL passes them as opts.headers, for
  // both user operations and the schema introspection query).
  function fetcher(params, opts) {
    var headers = {
      'Accept': 'application/json',
      'Content-Type': 'application/json'
    };
    var extra = opts && opts.headers;
    if (extra && typeof extra === 'object') {
      for (var name in extra) {
        if (hasOwn.call(extra, name) && extra[name] != null) {
          headers[name] = String(extra[name]);
        }
      }
    }
    return fetch(endpoint, {
      method: 'POST',
      headers: headers,
      body: JSON.stringify(params),
      credentials: 'same-origin'
    }).then(function (res) {
      return res.text().then(function (body) {
        try {
          return JSON.parse(body);
        } catch (e) {
          // Not a GraphQL response (e.g. a plain-text 401 from a proxy):
          // surface it in the result pane instead of failing silently.
          return {
            errors: [{ message: 'HTTP ' + res.status + ' ' + res.statusText + ': ' + body }]
          };
        }
      });
    });
  }

  var defaultHeaders = JSON.stringify({ Authorization: 'Bearer YOUR_API_KEY' }, null, 2);

  var defaultQuery = [
    '# storeadmin GraphQL playground',
    '#',
    '# Every request needs an API key. In the',
    '# "Headers" tab below, replace YOUR_API_KEY in',
    '#   {"Authorization": "Bearer YOUR_API_KEY"}',
    '# with your key, then re-fetch the schema',
    '# (refresh button, bottom left) to load the',
    '# docs and autocompletion.',
    '#',
    '# The key is not saved in the browser unless you',
    '# turn on "Persist headers" in the settings.',
    '',
    '{',
    '  __typename',
    '}',
    ''
  ].join('\n');

  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: defaultQuery,
      defaultHeaders: defaultHeaders,
      isHeadersEditorEnabled: true,
      // shouldPersistHeaders is deliberately left unset: headers (and so the
      // API key) are not written to localStorage unless the user turns on
      // "Persist headers" in the settings dialog. Passing false would hide
      // that setting.
      defaultEditorToolsVisibility: 'headers'
    })
  );
})();
