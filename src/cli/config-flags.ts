// Maps CLI flags to configuration keys, so flags go through the same schema and error messages
// as every other source.
import { loadConfig, type LoadedConfig } from '../config/load';

export interface SessionFlags {
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  toolsets?: string;
  cwd?: string;
  maxTurns?: string;
  approvalMode?: string;
  backend?: string;
}

export function configFromFlags(flags: SessionFlags): LoadedConfig {
  const partial: Record<string, Record<string, unknown>> = { model: {}, session: {}, approvals: {}, terminal: {} };
  if (flags.backend !== undefined) partial.terminal!.backend = flags.backend;
  if (flags.approvalMode !== undefined) partial.approvals!.mode = flags.approvalMode;
  if (flags.model !== undefined) partial.model!.name = flags.model;
  if (flags.baseUrl !== undefined) partial.model!.base_url = flags.baseUrl;
  if (flags.apiKey !== undefined) partial.model!.api_key = flags.apiKey;
  if (flags.toolsets !== undefined) {
    partial.session!.toolsets = flags.toolsets.split(',').map((name) => name.trim()).filter(Boolean);
  }
  if (flags.cwd !== undefined) partial.session!.cwd = flags.cwd;
  if (flags.maxTurns !== undefined) {
    partial.session!.max_turns = /^\d+$/.test(flags.maxTurns) ? Number(flags.maxTurns) : flags.maxTurns;
  }
  return loadConfig({ flags: partial });
}
