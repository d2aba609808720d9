import { defineConfig } from 'vite';

/**
 * The back-office app (issue 29). `vite build` writes console/dist, which the service serves at
 * /console (src/http/console-app.ts); `npm run console:dev` serves it with reload on change and
 * sends /graphql to the service on API_URL (default http://127.0.0.1:8080).
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline script: the CSP of /console is script-src 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 2000,
    reportCompressedSize: false,
    rolldownOptions: {
      // framer-motion (inside GraphiQL) marks modules "use client": meaningless in a browser bundle.
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  server: {
    port: Number(process.env.CONSOLE_DEV_PORT ?? 5173),
    proxy: { '/graphql': { target: process.env.API_URL ?? 'http://127.0.0.1:8080', changeOrigin: false } },
  },
});
