import { HeadroomError } from '../common/errors';
import type { StoreProblem } from './problems';
import { writeFailureOf } from './store-fs';

/** The problems and errors a journaled database reports when a write cannot be done. */

export function problemKindOf(err: unknown): StoreProblem['kind'] {
  const failure = writeFailureOf(err);
  return failure === 'io' ? 'export_failed' : failure;
}

export function lockLostError(): HeadroomError {
  return new HeadroomError(
    'storage',
    'Headroom storage is read-only: another VS Code window took over this workspace. The change was not saved.',
  );
}
