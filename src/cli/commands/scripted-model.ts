// `hermes-temporal scripted-model`: serve a model script over the OpenAI chat-completions API.
import type { Command } from 'commander';
import { loadModelScript } from '../../model/model-script';
import { startScriptedModelServer } from '../../model/scripted-model-server';

export function registerScriptedModelCommand(program: Command): void {
  program
    .command('scripted-model')
    .description('Serve a scripted OpenAI-compatible model on loopback (for tests and demos)')
    .requiredOption('--script <file>', 'YAML or JSON script: { turns: [{ content | tool_calls, fail_first?, ... }] }')
    .option('--port <n>', 'port to listen on (default: a free one)')
    .option('--host <ip>', 'address to bind', '127.0.0.1')
    .action(async (flags: { script: string; port?: string; host: string }) => {
      const server = await startScriptedModelServer({ script: loadModelScript(flags.script), host: flags.host, port: Number(flags.port ?? 0) });
      console.log(`Scripted model serving ${flags.script} at ${server.url} (set OPENAI_BASE_URL to this). Ctrl+C to stop.`);
      await new Promise<void>((resolve) => process.once('SIGINT', resolve));
      await server.close();
    });
}
