// ESLint (flat config): JavaScript's and typescript-eslint's recommended rules with type information,
// tuned so that what remains is worth fixing; formatting is Prettier's alone (eslint-config-prettier last).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'bench/out/', '.data/', '**/generated/', 'clients/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `_`-prefixed names are unused on purpose (callback positions, destructuring out a field)
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Nest's lifecycle and handler methods are async by contract even when they do not await
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // The engine is a library: no Nest, no database, no HTTP (src/engine/README.md).
    files: ['src/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@nestjs/*', 'typeorm', 'pg', 'express', 'multer'],
              message: 'the engine is a plain library (no Nest, database or HTTP)',
            },
          ],
        },
      ],
    },
  },
  {
    // The API tests read supertest's response bodies, typed `any`: the no-unsafe-* rules hold for src/ and bench/.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    // plain CommonJS scripts (jest's config, tools)
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  prettier,
);
