import path from 'node:path';

/** A file of an npm package, found by the package's own location (works from src/ and dist/). */
const fromPackage = (pkg: string, file: string) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);

/**
 * Exactly the package files the explorer pages load, by the name they are served under. Nothing
 * else of node_modules is reachable, and nothing comes from a CDN: the pages work offline.
 */
export const SWAGGER_UI_FILES: Record<string, string> = {
  'swagger-ui.css': fromPackage('swagger-ui-dist', 'swagger-ui.css'),
  'swagger-ui-bundle.js': fromPackage('swagger-ui-dist', 'swagger-ui-bundle.js'),
  'favicon-32x32.png': fromPackage('swagger-ui-dist', 'favicon-32x32.png'),
};

export const GRAPHIQL_FILES: Record<string, string> = {
  'graphiql.min.css': fromPackage('graphiql', 'graphiql.min.css'),
  'graphiql.min.js': fromPackage('graphiql', 'graphiql.min.js'),
  'react.production.min.js': fromPackage('react', 'umd/react.production.min.js'),
  'react-dom.production.min.js': fromPackage('react-dom', 'umd/react-dom.production.min.js'),
};
