// Lint rules from DESIGN.md: no floating promises, type-only imports, no import cycles, and no
// Node built-ins or I/O packages inside workflow code (the Temporal sandbox must stay deterministic).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { builtinModules } from 'node:module';

const ioPackages = ['openai', 'dockerode', 'ssh2', 'pino', 'better-sqlite3', 'pg', 'node-pty', 'yaml', 'commander', 'modal', '@daytonaio/sdk', '@vercel/sandbox', '@modelcontextprotocol/sdk'];

export default tseslint.config(
  // skipped-reporter.js is plain JavaScript: Jest loads reporters without its TypeScript transform.
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.venv-temporal/**', '.tmp/**', 'eslint.config.mjs', 'jest.config.js', 'test/helpers/skipped-reporter.js', 'test/fixtures/mcp/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      'import-x/no-cycle': 'error',
    },
  },
  {
    // The workflow's own folder and the approval modules it imports (signature checks run in the sandbox).
    files: ['src/workflows/**/*.ts', 'src/approval-signals/decision-signature.ts', 'src/approval-signals/definitions.ts', 'src/approval-signals/approval-types.ts', 'src/approval-signals/pending-approvals-memo.ts', 'src/code-execution/callable-tools.ts', 'src/mcp/listing-types.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...builtinModules, ...builtinModules.map((name) => `node:${name}`), ...ioPackages].map((name) => ({
            name,
            message: 'Workflow code runs in the deterministic sandbox: no Node built-ins or I/O packages.',
          })),
          patterns: [{ group: ['@modelcontextprotocol/**'], message: 'MCP connections live in activities (the worker pool), never in workflow code.' }, { group: ['**/activities/*', '**/store/*', '**/environments/*', '**/tools/*', '**/registry/*'], allowTypeImports: true, message: 'Workflows may import only types from worker-side modules.' }],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
