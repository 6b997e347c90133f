// The GraphQL explorer (GraphiQL, served from the gateway: nothing from a CDN). Requests go to
// /graphql with the headers of GraphiQL's Headers tab: opened from the operator console, they carry
// its session; otherwise put the super-admin token or a console session there (docs/api/console.md).
/* global document, sessionStorage, React, ReactDOM, GraphiQL */
(function () {
  var fetcher = GraphiQL.createFetcher({ url: '/graphql' });
  var session = null;
  try {
    session = JSON.parse(sessionStorage.getItem('convo.console.session') || 'null');
  } catch {
    session = null;
  }
  var token = session && session.token ? session.token : '<super-admin token or console session>';
  var headers = JSON.stringify({ authorization: 'Bearer ' + token }, null, 2);
  var query =
    '# Put your token in the Headers tab below, then run:\n{\n  tenantConnection(first: 5) { totalCount nodes { id name status } }\n}\n';
  ReactDOM.createRoot(document.getElementById('explorer')).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultHeaders: headers,
      defaultQuery: query,
      shouldPersistHeaders: false,
      isHeadersEditorEnabled: true,
    }),
  );
})();
