// The static toolsets: named bundles of tools, platform presets and legacy names (data only).

export interface ToolsetDefinition {
  description: string;
  tools: readonly string[];
  includes: readonly string[];
  /** Posture toolsets (e.g. `coding`): disabling one removes only its non-core tools. */
  posture?: boolean;
}

/** The tools every front end (CLI, cron, messaging platforms) starts from. */
export const CORE_TOOLS: readonly string[] = [
  'web_search', 'web_extract', 'terminal', 'process', 'read_terminal', 'close_terminal',
  'read_file', 'write_file', 'patch', 'search_files', 'vision_analyze', 'image_generate',
  'skills_list', 'skill_view', 'skill_manage',
  'browser_navigate', 'browser_snapshot', 'browser_click', 'browser_type', 'browser_scroll', 'browser_back',
  'browser_press', 'browser_get_images', 'browser_vision', 'browser_console', 'browser_cdp', 'browser_dialog',
  'text_to_speech', 'todo', 'memory', 'session_search', 'clarify', 'execute_code', 'delegate_task', 'cronjob',
  'ha_list_entities', 'ha_get_state', 'ha_list_services', 'ha_call_service',
  'kanban_show', 'kanban_list', 'kanban_complete', 'kanban_block', 'kanban_heartbeat', 'kanban_comment',
  'kanban_create', 'kanban_link', 'kanban_unblock', 'computer_use',
];

/** Webhooks carry untrusted third-party text: no file or terminal access. */
export const WEBHOOK_SAFE_TOOLS: readonly string[] = ['web_search', 'web_extract', 'vision_analyze', 'clarify'];

const BROWSER_TOOLS = [
  'browser_navigate', 'browser_snapshot', 'browser_click', 'browser_type', 'browser_scroll', 'browser_back',
  'browser_press', 'browser_get_images', 'browser_vision', 'browser_console', 'browser_cdp', 'browser_dialog',
];
const FEISHU_TOOLS = [
  'feishu_doc_read', 'feishu_drive_list_comments', 'feishu_drive_list_comment_replies',
  'feishu_drive_reply_comment', 'feishu_drive_add_comment',
];
const YUANBAO_TOOLS = ['yb_query_group_info', 'yb_query_group_members', 'yb_send_dm', 'yb_search_sticker', 'yb_send_sticker'];
const HOME_ASSISTANT_TOOLS = ['ha_list_entities', 'ha_get_state', 'ha_list_services', 'ha_call_service'];
const SKILLS_TOOLS = ['skills_list', 'skill_view', 'skill_manage'];

const CORE_PLATFORMS = [
  'cli', 'cron', 'telegram', 'whatsapp', 'slack', 'signal', 'bluebubbles', 'homeassistant', 'email',
  'mattermost', 'matrix', 'dingtalk', 'weixin', 'qqbot', 'wecom', 'wecom-callback', 'sms',
];

function leaf(description: string, tools: readonly string[]): ToolsetDefinition {
  return { description, tools, includes: [] };
}

function platformPreset(platform: string, extra: readonly string[] = []): ToolsetDefinition {
  return leaf(`Toolset for the ${platform} front end`, [...CORE_TOOLS, ...extra]);
}

export const TOOLSETS: Readonly<Record<string, ToolsetDefinition>> = Object.freeze({
  web: leaf('Web search and page extraction', ['web_search', 'web_extract']),
  search: leaf('Web search only', ['web_search']),
  x_search: leaf('Search X (Twitter)', ['x_search']),
  vision: leaf('Image analysis', ['vision_analyze']),
  video: leaf('Video analysis', ['video_analyze']),
  image_gen: leaf('Image generation', ['image_generate']),
  video_gen: leaf('Video generation', ['video_generate', 'xai_video_edit', 'xai_video_extend']),
  computer_use: leaf('Desktop control', ['computer_use']),
  terminal: leaf('Shell commands and background processes', ['terminal', 'process']),
  skills: leaf('Skills', SKILLS_TOOLS),
  browser: leaf('Browser automation', [...BROWSER_TOOLS, 'web_search']),
  cronjob: leaf('Scheduled jobs', ['cronjob']),
  file: leaf('Read, write, patch and search files', ['read_file', 'write_file', 'patch', 'search_files']),
  tts: leaf('Text to speech', ['text_to_speech']),
  todo: leaf('Task planning', ['todo']),
  memory: leaf('Durable memory', ['memory']),
  context_engine: leaf('Context engine', []),
  session_search: leaf('Search past sessions', ['session_search']),
  project: leaf('Desktop projects', ['project_list', 'project_create', 'project_switch']),
  clarify: leaf('Ask the user', ['clarify']),
  code_execution: leaf('Run scripts that call tools', ['execute_code']),
  delegation: leaf('Sub-agents', ['delegate_task']),
  homeassistant: leaf('Home Assistant', HOME_ASSISTANT_TOOLS),
  kanban: leaf('Kanban board', [
    'kanban_show', 'kanban_list', 'kanban_complete', 'kanban_block', 'kanban_heartbeat', 'kanban_comment',
    'kanban_create', 'kanban_link', 'kanban_unblock',
  ]),
  discord: leaf('Discord', ['discord']),
  discord_admin: leaf('Discord administration', ['discord_admin']),
  yuanbao: leaf('Yuanbao', YUANBAO_TOOLS),
  feishu_doc: leaf('Feishu documents', ['feishu_doc_read']),
  feishu_drive: leaf('Feishu drive comments', FEISHU_TOOLS.slice(1)),
  spotify: leaf('Spotify', [
    'spotify_playback', 'spotify_devices', 'spotify_queue', 'spotify_search', 'spotify_playlists', 'spotify_albums',
    'spotify_library',
  ]),
  debugging: { description: 'Debugging: terminal plus web and files', tools: ['terminal', 'process'], includes: ['web', 'file'] },
  safe: { description: 'No side effects on this machine', tools: [], includes: ['web', 'vision', 'image_gen'] },
  coding: {
    description: 'Coding posture',
    posture: true,
    includes: [],
    tools: [
      'web_search', 'web_extract', 'terminal', 'process', 'read_terminal', 'close_terminal', 'read_file', 'write_file',
      'patch', 'search_files', 'vision_analyze', ...SKILLS_TOOLS, ...BROWSER_TOOLS, 'todo', 'memory', 'session_search',
      'clarify', 'execute_code', 'delegate_task',
    ],
  },
  'hermes-acp': leaf('Editor integration', [
    'web_search', 'web_extract', 'terminal', 'process', 'read_file', 'write_file', 'patch', 'search_files',
    'vision_analyze', ...SKILLS_TOOLS, ...BROWSER_TOOLS, 'todo', 'memory', 'session_search', 'execute_code',
    'delegate_task',
  ]),
  'hermes-api-server': leaf('API server', [
    'web_search', 'web_extract', 'terminal', 'process', 'read_file', 'write_file', 'patch', 'search_files',
    'vision_analyze', 'image_generate', ...SKILLS_TOOLS, ...BROWSER_TOOLS, 'todo', 'memory', 'session_search',
    'execute_code', 'delegate_task', 'cronjob', ...HOME_ASSISTANT_TOOLS,
  ]),
  ...Object.fromEntries(CORE_PLATFORMS.map((platform) => [`hermes-${platform}`, platformPreset(platform)])),
  'hermes-discord': platformPreset('discord', ['discord', 'discord_admin']),
  'hermes-feishu': platformPreset('feishu', FEISHU_TOOLS),
  'hermes-yuanbao': platformPreset('yuanbao', YUANBAO_TOOLS),
  'hermes-webhook': leaf('Webhook-triggered sessions', WEBHOOK_SAFE_TOOLS),
  'hermes-gateway': {
    description: 'Every messaging platform',
    tools: [],
    includes: [
      'hermes-telegram', 'hermes-discord', 'hermes-whatsapp', 'hermes-slack', 'hermes-signal', 'hermes-bluebubbles',
      'hermes-homeassistant', 'hermes-email', 'hermes-sms', 'hermes-mattermost', 'hermes-matrix', 'hermes-dingtalk',
      'hermes-feishu', 'hermes-wecom', 'hermes-wecom-callback', 'hermes-weixin', 'hermes-qqbot', 'hermes-webhook',
      'hermes-yuanbao',
    ],
  },
});

/** Old `*_tools` names still accepted in configs. */
export const LEGACY_TOOLSETS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  web_tools: ['web_search', 'web_extract'],
  terminal_tools: ['terminal'],
  vision_tools: ['vision_analyze'],
  image_tools: ['image_generate'],
  skills_tools: SKILLS_TOOLS,
  browser_tools: BROWSER_TOOLS.slice(0, 10),
  cronjob_tools: ['cronjob'],
  file_tools: ['read_file', 'write_file', 'patch', 'search_files'],
  tts_tools: ['text_to_speech'],
});
