import type { JobKind, JobSubject } from './job-kinds';
import { renderStatus, seconds, shownState, statusColumns } from './job-state';

// subjects as the modules register them (analysis.job.ts, task.subject.ts, prediction.job.ts)
const analysis: JobSubject = {
  name: 'analysis',
  table: 'analyses',
  jobColumn: 'analysis_id',
  times: true,
  showsTimes: true,
  progress: true,
};
const task: JobSubject = { name: 'task', table: 'tasks', jobColumn: 'task_id', updatedAt: true, dataset: true };
const prediction: JobSubject = { name: 'prediction', table: 'predictions', jobColumn: 'prediction_id', times: true };
const kind = (name: string, subject: JobSubject, waitsAs: 'pending' | 'running'): JobKind<unknown> => ({
  name,
  subject,
  subjectId: () => '1',
  failureCode: 'internal-115-4-1',
  waitsAs,
});
const kinds = [kind('createDataset', task, 'pending'), kind('imageDataset', task, 'running'), kind('analysis', analysis, 'pending')];

const start = new Date('2026-01-01T00:00:00.000Z');
const at = (s: number) => new Date(start.getTime() + s * 1000);

describe('renderStatus', () => {
  it('an analysis: times when running or finished, progress only while running', () => {
    expect(renderStatus(analysis, { state: 'pending', error: null, start_time: null, end_time: null, progress: null, now: at(1) })).toEqual(
      {
        state: 'pending',
      },
    );
    expect(
      renderStatus(analysis, { state: 'running', error: null, start_time: start, end_time: null, progress: 0.25, now: at(2.5) }),
    ).toEqual({
      state: 'running',
      startTime: '2026-01-01T00:00:00.000Z',
      executionTimeInSeconds: 2.5,
      progress: 0.25,
    });
    expect(
      renderStatus(analysis, { state: 'finished', error: null, start_time: start, end_time: at(7.123), progress: null, now: at(60) }),
    ).toEqual({
      state: 'finished',
      startTime: '2026-01-01T00:00:00.000Z',
      executionTimeInSeconds: 7.12,
    });
  });

  it('a failed analysis has its error, and times only when it had started', () => {
    const error = { code: 'internal-120-4-1', message: 'boom' };
    expect(renderStatus(analysis, { state: 'failed', error, start_time: null, end_time: at(1), progress: null, now: at(2) })).toEqual({
      state: 'failed',
      error,
    });
    expect(renderStatus(analysis, { state: 'failed', error, start_time: start, end_time: at(3), progress: null, now: at(9) })).toEqual({
      state: 'failed',
      startTime: '2026-01-01T00:00:00.000Z',
      executionTimeInSeconds: 3,
      error,
    });
  });

  it('progress is clamped to [0, 1]', () => {
    expect(renderStatus(analysis, { state: 'running', error: null, start_time: start, progress: 1.5, now: at(1) }).progress).toBe(1);
    expect(renderStatus(analysis, { state: 'running', error: null, start_time: start, progress: null, now: at(1) }).progress).toBe(0);
  });

  it('a task: datasetId when finished (also once the dataset is deleted), nothing of times or progress', () => {
    expect(renderStatus(task, { state: 'finished', error: null, dataset_id: '42' })).toEqual({ state: 'finished', datasetId: '42' });
    expect(renderStatus(task, { state: 'running', error: null, dataset_id: null })).toEqual({ state: 'running' });
    const error = { code: 'badRequest-115-3-1', message: 'row 3: 2 fields where the header has 3' };
    expect(renderStatus(task, { state: 'failed', error, dataset_id: null })).toEqual({ state: 'failed', error });
  });

  it('a prediction: its state, and its error when failed', () => {
    expect(renderStatus(prediction, { state: 'running', error: null, start_time: start })).toEqual({ state: 'running' });
    const error = { code: 'badRequest-150-3-2', message: 'no rows' };
    expect(renderStatus(prediction, { state: 'failed', error })).toEqual({ state: 'failed', error });
  });
});

describe('statusColumns', () => {
  it('selects what each subject renders', () => {
    expect(statusColumns(task, kinds)).toBe(`${shownState(task, kinds)}, error, dataset_id`);
    expect(statusColumns(analysis, kinds)).toBe(`${shownState(analysis, kinds)}, error, start_time, end_time, now() AS now, progress`);
    expect(statusColumns(prediction, kinds)).toBe(`${shownState(prediction, kinds)}, error`);
  });
});

describe('shownState', () => {
  it('shows a running subject whose job is queued again as pending, but not for a kind that waits as running', () => {
    expect(shownState(analysis, kinds)).toBe(
      `CASE WHEN analyses.state = 'running' AND EXISTS (SELECT 1 FROM jobs WHERE jobs.analysis_id = analyses.id AND jobs.state = 'queued') THEN 'pending' ELSE analyses.state END AS state`,
    );
    expect(shownState(task, kinds)).toBe(
      `CASE WHEN tasks.state = 'running' AND EXISTS (SELECT 1 FROM jobs WHERE jobs.task_id = tasks.id AND jobs.state = 'queued' AND jobs.kind NOT IN ('imageDataset')) THEN 'pending' ELSE tasks.state END AS state`,
    );
  });
});

describe('seconds', () => {
  it('rounds to the hundredth and is never negative', () => {
    expect(seconds(start, at(1.234))).toBe(1.23);
    expect(seconds(at(5), start)).toBe(0);
  });
});
