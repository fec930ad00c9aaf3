// Entry point of the workflow bundle: every workflow type the worker serves.
export { agentSession } from './agent-session';
