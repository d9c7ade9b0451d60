import { spawnSync } from 'node:child_process';

/** A python with scikit-learn: `preferred` (a --python argument), else python3 on the PATH, else Debian's /usr/bin/python3. */
export function findPython(preferred = ''): string | null {
  const candidates = [preferred, 'python3', '/usr/bin/python3'].filter((p) => p !== '');
  for (const p of candidates) if (spawnSync(p, ['-c', 'import sklearn'], { stdio: 'ignore' }).status === 0) return p;
  return null;
}
