// ESLint (flat config) with typescript-eslint: the recommended rules, and the code's boundaries.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Outside its own folder, a service domain is entered through its index.ts only. */
const domainsThroughTheirIndex = {
  regex: '(^|/)services/[a-z-]+/(?!index\\.js$)[^/]+$',
  message: 'Import a service domain through its index.ts (services/<domain>/index.js), not its files.',
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist-eval/**',
      'dist-bench/**',
      'console/dist/**',
      'node_modules/**',
      '.data/**',
      'coverage/**',
      'test/graphql/generated.ts',
      'console/src/graphql/**',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-unsafe-declaration-merging': 'off',
    },
  },
  {
    // Outside services, a domain is entered through its index. (The benchmark, in bench/, seeds and
    // reads what it measures directly, so it is not held to this.)
    files: ['src/**/*.ts'],
    ignores: ['src/services/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [domainsThroughTheirIndex] }] },
  },
  {
    // The engine is pure: it imports no service, no entity and no adapter. The orchestration that
    // reads a verification, runs its checks and saves their results is the checks domain
    // (services/checks), which maps entities to the engine's own types (engine/types.ts).
    files: ['src/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            domainsThroughTheirIndex,
            {
              regex: '(^|/)(services|entities|rest|resolvers|graphql|jobs|http|storage)/|(^|/)(runtime|orm)\\.js$',
              message: 'The engine imports no service, entity or adapter.',
            },
          ],
        },
      ],
    },
  },
  {
    // Intentional control characters: the byte-order mark, NUL and C0 checks on input.
    files: ['src/engine/aml/ofac.ts', 'src/graphql/apollo.ts', 'src/http/body.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    // MikroORM needs the literal type on a column with a default; `as const` would not give it.
    files: ['src/entities/**/*.ts'],
    rules: { '@typescript-eslint/prefer-as-const': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        window: 'readonly',
        document: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        navigator: 'readonly',
        URL: 'readonly',
        Blob: 'readonly',
        FormData: 'readonly',
        performance: 'readonly',
        requestAnimationFrame: 'readonly',
        sessionStorage: 'readonly',
        location: 'readonly',
        history: 'readonly',
        matchMedia: 'readonly',
        Image: 'readonly',
        AbortController: 'readonly',
        TextEncoder: 'readonly',
        crypto: 'readonly',
        getComputedStyle: 'readonly',
        HTMLElement: 'readonly',
        Event: 'readonly',
        MediaRecorder: 'readonly',
        XMLHttpRequest: 'readonly',
        URLSearchParams: 'readonly',
        CustomEvent: 'readonly',
        createImageBitmap: 'readonly',
        OffscreenCanvas: 'readonly',
        globalThis: 'readonly',
        Buffer: 'readonly',
      },
    },
  },
);
