import { workflowTaskPolls } from '../../../src/temporal/worker-tuning';

const worker = (settings: { max_concurrent_workflow_tasks: number; max_concurrent_workflow_task_polls?: number }) => ({
  worker: { max_concurrent_activities: 100, max_concurrent_scripts: 32, shutdown_grace_seconds: 30, connect_timeout_seconds: 600, max_cached_workflows: 200, max_eager_activities_per_task: 16, ...settings },
});

describe('workflow task pollers', () => {
  it('poll for half the workflow task slots unless configured', () => {
    expect(workflowTaskPolls(worker({ max_concurrent_workflow_tasks: 40 }))).toBe(20);
  });

  it('take the configured number', () => {
    expect(workflowTaskPolls(worker({ max_concurrent_workflow_tasks: 40, max_concurrent_workflow_task_polls: 8 }))).toBe(8);
  });

  it('stay within what the SDK accepts: at least 2, never more than the slots', () => {
    expect(workflowTaskPolls(worker({ max_concurrent_workflow_tasks: 3 }))).toBe(2);
    expect(workflowTaskPolls(worker({ max_concurrent_workflow_tasks: 10, max_concurrent_workflow_task_polls: 50 }))).toBe(10);
  });
});
