import { Init1763800000000 } from './1763800000000-init';

/** Every migration, oldest first. Add new ones at the end (timestamped class names, raw SQL). */
export const MIGRATIONS = [Init1763800000000];
