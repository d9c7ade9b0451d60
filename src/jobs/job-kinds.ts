/**
 * Every kind of job. Start-up fails when one has no registered handler, so a job can never sit in the
 * table with nobody to run it. Add a kind here and register its handler in its module's onModuleInit.
 */
export const JOB_KINDS = ['createDataset', 'analysis', 'prediction', 'imageDataset'] as const satisfies readonly string[];
export type JobKind = (typeof JOB_KINDS)[number];
