import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../test/render';
import i18n from '../i18n';
import { FilePicker } from './FilePicker';

describe('FilePicker', () => {
  it('is a translated button and the chosen name, the native input hidden but labelled', async () => {
    const onChange = vi.fn();
    renderWithProviders(<FilePicker label="Imagem de saudação" accept="image/png" onChange={onChange} />);
    expect(screen.getByText('Escolher arquivo')).toBeInTheDocument();
    expect(screen.getByText('Nenhum arquivo escolhido')).toBeInTheDocument();
    const input = screen.getByLabelText('Imagem de saudação');
    expect(input).toHaveAttribute('type', 'file');
    // Visually hidden (clipped to 1 px), not display:none: it keeps focus and the form.
    expect(getComputedStyle(input).position).toBe('absolute');
    expect(getComputedStyle(input).width).toBe('1px');
    expect(getComputedStyle(input).display).not.toBe('none');
    const file = new File(['png'], 'oi.png', { type: 'image/png' });
    await userEvent.upload(input, file);
    expect(onChange).toHaveBeenCalledWith(file);
    expect(screen.getByText('oi.png')).toBeInTheDocument();
  });

  it('speaks the interface language', async () => {
    await i18n.changeLanguage('es');
    try {
      renderWithProviders(<FilePicker label="x" onChange={() => {}} />);
      expect(screen.getByText('Elegir archivo')).toBeInTheDocument();
      expect(screen.getByText('Ningún archivo elegido')).toBeInTheDocument();
    } finally {
      await i18n.changeLanguage('pt-BR');
    }
  });
});
