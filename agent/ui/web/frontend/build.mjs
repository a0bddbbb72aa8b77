// Builds the chat page into agent/ui/web/static (run from the repo root: `npm run build:web`).
// The output is committed; a test rebuilds it and compares, so keep the build deterministic
// (no source maps, no metafile, no timestamps).
import { copyFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const outdir = process.argv[2] ?? join(here, '..', 'static');

await build({
  entryPoints: { app: join(here, 'src', 'main.tsx') },
  outdir,
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2022',
  jsx: 'automatic',
  legalComments: 'none',
  charset: 'utf8',
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});
copyFileSync(join(here, 'index.html'), join(outdir, 'index.html'));
