import type { EntityManager } from 'typeorm';

/**
 * What another module does, in the transaction that deletes a user, after the user's work in projects of others
 * passed to those projects' owners: the jobs module moves the jobs of that work with it (jobs/jobs.queries.ts). auth
 * and jobs are on one floor and do not import each other: the jobs module provides this step under this token, and
 * UsersService runs it.
 */
export type UserDeletionStep = (tx: EntityManager, userId: string) => Promise<void>;

export const USER_DELETION_STEP = 'USER_DELETION_STEP';
