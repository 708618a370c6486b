/**
 * graphql-ws publishes its server integrations as package subpaths (`graphql-ws/use/ws`), which
 * this project's `moduleResolution: node` cannot see; Node resolves them at run time by the
 * package's `exports`. These name the types the subpaths export.
 */
declare module 'graphql-ws/use/ws' {
  export { useServer, type Extra } from 'graphql-ws/dist/use/ws';
}
