import '@mantine/core/styles.css';
import './console.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { DEFAULT_THEME, MantineProvider, createTheme, type MantineColorsTuple } from '@mantine/core';
import { SessionProvider } from './session';
import { App } from './App';

// Shades 6-9 darkened so that light badges (text in shade 6) and filled buttons (shade 8 under
// white text) keep 4.5:1 contrast (axe, WCAG AA).
const darker: Record<string, [string, string, string, string]> = {
  green: ['#1f7a35', '#1b6e2f', '#17612a', '#124f22'],
  red: ['#c11f1f', '#ad1c1c', '#9c1919', '#7f1414'],
  orange: ['#b34700', '#a14000', '#8f3900', '#752e00'],
  grape: ['#8e3aa8', '#7e3396', '#6f2d85', '#5a246b'],
  teal: ['#0b7566', '#0a685b', '#095c50', '#074a40'],
  blue: ['#1c64c4', '#1a5bb2', '#1750a0', '#134285'],
  indigo: ['#3b5bdb', '#364fc7', '#2f44ad', '#283a94'],
  yellow: ['#7a5a00', '#6b4f00', '#5c4400', '#4d3900'],
  gray: ['#5c636a', '#495057', '#343a40', '#212529'],
};
const colors = Object.fromEntries(
  Object.entries(darker).map(([name, shades]) => [
    name,
    [...DEFAULT_THEME.colors[name]!.slice(0, 6), ...shades] as unknown as MantineColorsTuple,
  ]),
);
const theme = createTheme({ primaryColor: 'indigo', defaultRadius: 'sm', primaryShade: 7, colors });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="light">
      <SessionProvider>
        <App />
      </SessionProvider>
    </MantineProvider>
  </StrictMode>,
);
