// A worker process the activity suite kills with SIGKILL right after the activity's side effect.
// argv: <server address> <task queue> <side-effect file>
import { appendFileSync } from 'node:fs';
import { Context } from '@temporalio/activity';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';

const [address, taskQueue, file] = process.argv.slice(2) as [string, string, string];
Runtime.install({ logger: new DefaultLogger('ERROR') });
const connection = await NativeConnection.connect({ address });
const worker = await Worker.create({
  connection,
  taskQueue,
  activities: {
    async sideEffect(): Promise<string> {
      const { workflowExecution, activityId, attempt } = Context.current().info;
      appendFileSync(file, `${workflowExecution?.workflowId}/${activityId} attempt=${attempt}\n`);
      // "Crash" before reporting: the parent process kills us while we wait here.
      await new Promise(() => undefined);
      return 'unreachable';
    },
  },
});
await worker.run();
