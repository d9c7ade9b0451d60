import type { JobSubject } from '../jobs/job-kinds';

/**
 * Tasks: what the jobs that build a dataset work for, from an uploaded file (createDataset, here) or from images
 * (image-upload's imageDataset). GET /task/:taskId/status shows their state, and the dataset they built.
 */
export const TASK_SUBJECT: JobSubject = { name: 'task', table: 'tasks', jobColumn: 'task_id', updatedAt: true, dataset: true };

/** tasks.kind of a dataset built from an uploaded file (image-upload's tasks have their own kind). */
export const FILE_TASK_KIND = 'createDataset';
