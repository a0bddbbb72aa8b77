// Who decided a conversation's approvals (`GET /api/chat/{id}/decisions`), as lines under each tool call.
import { type UIMessage, isToolOrDynamicToolUIPart } from 'ai';

export interface ToolCallDecision {
  tool_call_id: string;
  tool_name: string;
  decision: 'approve' | 'deny' | 'override' | 'result';
  by: string[];
  reason: string | null;
}

export interface OpenApproval {
  tool_call_id: string;
  tool_name: string;
  required: number;
  approved_by: string[];
}

export interface ConversationDecisions {
  decisions: ToolCallDecision[];
  open_approvals: OpenApproval[];
}

type Part = UIMessage['parts'][number];

function decided(record: ToolCallDecision): string {
  const by = record.by.length ? ` by ${record.by.join(', ')}` : '';
  switch (record.decision) {
    case 'approve':
      return `Approved${by}`;
    case 'override':
      return `Approved with changed arguments${by}`;
    case 'result':
      return `Answered${by}`;
    case 'deny':
      // A denial no one made is the run's own: the request (or the run's wait) expired.
      if (!record.by.length) return 'Expired';
      return `Denied${by}${record.reason ? `: ${record.reason}` : ''}`;
  }
}

// Tool calls with no decision yet: waiting for an answer, or with one on its way.
const UNDECIDED = new Set(['input-streaming', 'input-available', 'approval-requested', 'approval-responded']);

// What the page says under each tool part: how its call was decided, or how far its approvals got. A model may use
// one call id in several turns, so parts and records are paired from the latest back, each record used once.
export function decisionLines(answer: ConversationDecisions | null, messages: UIMessage[]): Map<Part, string> {
  const lines = new Map<Part, string>();
  if (answer === null) return lines;
  const records = new Map<string, ToolCallDecision[]>();
  for (const record of answer.decisions) {
    records.set(record.tool_call_id, [...(records.get(record.tool_call_id) ?? []), record]);
  }
  const open = new Map(answer.open_approvals.map((approval) => [approval.tool_call_id, approval]));
  const parts = messages.flatMap((message) => message.parts).filter(isToolOrDynamicToolUIPart);
  for (const part of parts.reverse()) {
    if (part.state === 'approval-requested') {
      const progress = open.get(part.toolCallId);
      if (progress?.approved_by.length) {
        const names = progress.approved_by.join(', ');
        lines.set(part, `${progress.approved_by.length} of ${progress.required} approvals (${names})`);
      }
    } else if (!UNDECIDED.has(part.state)) {
      const record = records.get(part.toolCallId)?.pop();
      if (record) lines.set(part, decided(record));
    }
  }
  return lines;
}
