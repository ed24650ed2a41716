// The protocol table of Symposium's ACP proxy design (docs/interop.md), as the interop tests send it:
// one session/update of each kind the table lists.

export const ALL_UPDATES: Array<Record<string, unknown>> = [
  { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hello" } },
  { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "thinking" } },
  { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read file", kind: "read", status: "pending" },
  {
    sessionUpdate: "tool_call_update",
    toolCallId: "t1",
    title: "Read file",
    kind: "read",
    status: "completed",
    content: [{ type: "content", content: { type: "text", text: "done" } }],
    rawInput: { command: "cat" },
    rawOutput: { output: "x" },
  },
  { sessionUpdate: "current_mode_update", currentModeId: "code" },
  { sessionUpdate: "available_commands_update", availableCommands: [{ name: "review", description: "Review", input: { hint: "what" } }] },
  { sessionUpdate: "plan", entries: [{ content: "step", priority: "high", status: "pending" }] },
];
