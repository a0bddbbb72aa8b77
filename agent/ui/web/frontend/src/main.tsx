import { createRoot } from 'react-dom/client';
import { App } from './App';
import { takeTokenFromUrl } from './api';
import './styles.css';

takeTokenFromUrl();
createRoot(document.getElementById('root')!).render(<App />);
