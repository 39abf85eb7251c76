import { randomBytes } from 'node:crypto';

/** A short random id with a readable prefix, e.g. `newId('ses')` → `ses_3f9a1c0d2b7e4a51`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}
