/**
 * The explorers' own page, start script and styles. Scripts are files, never inline: the pages'
 * CSP allows scripts from 'self' only (src/explorers/index.ts).
 */

const page = (title: string, head: string, body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${head}
</head>
<body>
${body}
</body>
</html>
`;

export const SWAGGER_UI_PAGE = page(
  'Worship records: REST API v1',
  `<link rel="stylesheet" href="/api/v1/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/api/v1/docs/favicon-32x32.png">`,
  `<div id="swagger-ui"></div>
<script src="/api/v1/docs/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/swagger-init.js"></script>`,
);

// `validatorUrl: null` keeps Swagger UI from sending the document to validator.swagger.io.
export const SWAGGER_UI_INIT = `window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

export const GRAPHIQL_PAGE = page(
  'Worship records: GraphiQL',
  `<link rel="stylesheet" href="/graphiql/graphiql.min.css">
<link rel="stylesheet" href="/graphiql/graphiql-page.css">
<link rel="icon" href="data:,">`,
  `<div id="graphiql">Loading GraphiQL…</div>
<script src="/graphiql/react.production.min.js"></script>
<script src="/graphiql/react-dom.production.min.js"></script>
<script src="/graphiql/graphiql.min.js"></script>
<script src="/graphiql/graphiql-init.js"></script>`,
);

// A token goes in the Headers tab as {"Authorization": "Bearer <token>"}.
export const GRAPHIQL_INIT = `(function () {
  var fetcher = GraphiQL.createFetcher({ url: new URL('/graphql', window.location.href).href });
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultEditorToolsVisibility: true,
      defaultQuery: '# Press the run button (or Ctrl-Enter)\\n{\\n  songs(limit: 5) {\\n    id\\n    name\\n    artists\\n  }\\n}\\n',
    }),
  );
})();
`;

export const GRAPHIQL_CSS = `html, body { height: 100%; margin: 0; }
#graphiql { height: 100vh; }
`;
