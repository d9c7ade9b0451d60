import { QueryFailedError } from 'typeorm';
import { EngineCrash } from '../common/engine-process';
import { clientMessage } from './job-messages';
import { FinalJobError, JobFailure } from './jobs.types';

describe('clientMessage: what a client reads of a failed job', () => {
  const job = { id: '42', subject: 'task' };

  it('passes the messages written for clients', () => {
    expect(clientMessage(job, new FinalJobError('the uploaded file was deleted'))).toBe('the uploaded file was deleted');
    expect(clientMessage(job, new JobFailure('badRequest-115-3-1', 'line 3: too many fields'))).toBe('line 3: too many fields');
    expect(clientMessage(job, new EngineCrash('the engine ran out of memory (ENGINE_MAX_MEMORY_MB)'))).toBe(
      'the engine ran out of memory (ENGINE_MAX_MEMORY_MB)',
    );
  });

  it('hides SQL, library and Node messages behind a reference to the log', () => {
    const sql = new QueryFailedError(
      'INSERT INTO dataset_columns ...',
      [],
      new Error('violates check constraint "dataset_columns_type_check"'),
    );
    const node = Object.assign(new Error("ENOENT: no such file or directory, open '/srv/signet/spool/x'"), { code: 'ENOENT' });
    for (const e of [sql, node, new TypeError("Cannot read properties of undefined (reading 'constructor')"), 'a string']) {
      const message = clientMessage(job, e);
      expect(message).toBe('the task stopped on an internal fault (logged with job 42): retry, or report it with this number');
    }
  });
});
