import { type UIMessage, getToolOrDynamicToolName, isToolOrDynamicToolUIPart } from 'ai';
import { useState } from 'react';

type ApprovalFn = (answer: { id: string; approved: boolean; reason?: string }) => void | PromiseLike<void>;
type ToolPart = Extract<UIMessage['parts'][number], { toolCallId: string }>;

function json(value: unknown): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

function Approval({ part, name, onApproval }: { part: ToolPart; name: string; onApproval: ApprovalFn }) {
  const [reason, setReason] = useState('');
  if (part.state !== 'approval-requested') return null;
  const id = part.approval.id;
  return (
    <div className="approval" role="group" aria-label={`Approval for ${name}`}>
      <p>
        <strong>{name}</strong> needs your approval.
      </p>
      <label>
        Reason for denying (optional)
        <input value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      <div className="buttons">
        <button type="button" className="approve" onClick={() => void onApproval({ id, approved: true })}>
          Approve
        </button>
        <button
          type="button"
          className="deny"
          onClick={() => void onApproval({ id, approved: false, reason: reason.trim() || undefined })}
        >
          Deny
        </button>
      </div>
    </div>
  );
}

const STATE_LABELS: Record<string, string> = {
  'input-streaming': 'preparing',
  'input-available': 'running',
  'approval-requested': 'waiting for approval',
  'approval-responded': 'answered',
  'output-available': 'done',
  'output-error': 'failed',
  'output-denied': 'denied',
};

// `decision`: who decided the call, or how far its approvals got (see `decisions.ts`), when the server says.
function Tool({ part, decision, onApproval }: { part: ToolPart; decision?: string; onApproval: ApprovalFn }) {
  const name = getToolOrDynamicToolName(part);
  return (
    <div className={`tool tool-${part.state}`}>
      <div className="tool-head">
        <span className="tool-name">{name}</span>
        <span className="tool-state">{STATE_LABELS[part.state] ?? part.state}</span>
      </div>
      {part.input !== undefined && (
        <pre className="tool-args" aria-label={`Arguments of ${name}`}>
          {json(part.input)}
        </pre>
      )}
      {part.state === 'output-available' && (
        <pre className="tool-result" aria-label={`Result of ${name}`}>
          {json(part.output)}
        </pre>
      )}
      {part.state === 'output-error' && <p className="error">{part.errorText}</p>}
      {part.state === 'output-denied' && decision === undefined && (
        <p className="muted">Denied{part.approval?.reason ? `: ${part.approval.reason}` : ''}</p>
      )}
      {decision !== undefined && <p className="decision">{decision}</p>}
      <Approval part={part} name={name} onApproval={onApproval} />
    </div>
  );
}

interface MessageProps {
  message: UIMessage;
  decisions: Map<UIMessage['parts'][number], string>;
  onApproval: ApprovalFn;
  busy: boolean;
}

export function Message({ message, decisions, onApproval }: MessageProps) {
  return (
    <li className={`message ${message.role}`}>
      <span className="role">{message.role === 'user' ? 'You' : 'Agent'}</span>
      {message.parts.map((part, i) => {
        if (part.type === 'text') {
          return (
            <div key={i} className="text">
              {part.text}
            </div>
          );
        }
        if (part.type === 'reasoning') {
          return (
            <details key={i} className="reasoning">
              <summary>Reasoning</summary>
              <div className="text">{part.text}</div>
            </details>
          );
        }
        if (isToolOrDynamicToolUIPart(part)) {
          return <Tool key={part.toolCallId} part={part} decision={decisions.get(part)} onApproval={onApproval} />;
        }
        return null;
      })}
    </li>
  );
}
