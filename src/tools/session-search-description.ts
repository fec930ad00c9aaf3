// The session_search tool's model-facing description: the original Hermes text, with message ids
// being each message's position (seq) in its session, sub-agent sessions counted with their root
// session, and no profiles (one store per deployment).

export const SESSION_SEARCH_DESCRIPTION = `Search past sessions stored in the session store, or scroll inside one. Full-text retrieval over the stored transcripts. No LLM calls — every shape returns actual messages from the store.

SOURCE-FIRST LIMIT

  This tool searches Hermes conversation history only. It is not evidence about the current contents of external sources. If the user provided a direct source such as a URL, file path, account, website, or live system, inspect that original source before or instead of session_search when accessible. Use session_search as secondary context for what was previously said, not as primary proof of what the source currently contains. Do not conclude 'not found' or 'no prior correspondence' from session_search alone when a direct source was provided.

MESSAGE IDS

  A message id is the message's position (seq) in its session: 0 is the system prompt, 1 the task, then one id per model reply and tool result. Ids are only meaningful together with their session_id.

FOUR CALLING SHAPES

  1) DISCOVERY — pass \`query\`:
     session_search(query="auth refactor", limit=3)
     Runs the full-text search, keeps the best hit per session (a sub-agent's session counts with the session that started it, its root), and returns the top N. The current session and its sub-agents are never results. Each result carries:
       - session_id (the session holding the match), parent_session_id (its root, when different), title, when, model
       - snippet: the match excerpt, terms marked >>>like this<<<
       - bookend_start: first 3 user+assistant messages of the session (the goal / kickoff)
       - messages: ±5 messages around the match, with the anchor message flagged (the hit in context)
       - bookend_end: last 3 user+assistant messages of the session (the resolution / decisions)
       - match_message_id, messages_before, messages_after
     Long messages are cut to 500 characters (content_truncated, original_content_chars say so).

  2) SCROLL — pass \`session_id\` + \`around_message_id\`:
     session_search(session_id="...", around_message_id=12, window=10)
     Returns a window of ±\`window\` messages centered on the anchor. No bookends — just the slice.
       - To scroll FORWARD: pass messages[-1].id back as around_message_id.
       - To scroll BACKWARD: pass messages[0].id back as around_message_id.
       - When messages_before or messages_after is < window, you're at the start or end of the session.

  3) READ — pass \`session_id\` only (no around_message_id):
     session_search(session_id="...")
     Dumps the whole session by id (first 20 + last 10 messages when large).

  4) BROWSE — no args:
     session_search()
     Returns recent sessions, newest first: titles (the task), status, timestamps. Use when the user asks "what was I working on" without naming a topic.

QUERY SYNTAX

  AND is the default — multi-word queries require all terms. Use OR explicitly for broader recall (\`alpha OR beta OR gamma\`), quoted phrases for exact match (\`"docker networking"\`), NOT to exclude (\`python NOT java\`), or prefix wildcards (\`deploy*\`).

WHEN TO USE

  Reach for this on questions about Hermes conversation history itself, such as "what did we do about X", "where did we leave Y", or "find the session where Z".`;
