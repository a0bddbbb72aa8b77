import { useState } from 'react';
import { setToken } from './api';

export function TokenForm({ onSaved }: { onSaved: () => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      className="token-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim()) {
          setToken(value.trim());
          onSaved();
        }
      }}
    >
      <h1>Agent chat</h1>
      <p>This server needs an access token (the server prints a link that includes it).</p>
      <label>
        Access token
        <input type="password" value={value} onChange={(e) => setValue(e.target.value)} autoFocus />
      </label>
      <button type="submit">Save token</button>
    </form>
  );
}
