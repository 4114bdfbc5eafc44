// A QR code drawn as one SVG path from the qrcode string of a session (uqr encodes;
// MIT, no dependencies). Quiet zone of 4 modules so phone cameras lock on.
import { memo, useMemo } from 'react';
import { encode } from 'uqr';

export const QrCode = memo(function QrCode({ value, size = 256, label }: { value: string; size?: number; label: string }) {
  const { d, n } = useMemo(() => {
    const qr = encode(value, { ecc: 'L', border: 4 });
    let path = '';
    qr.data.forEach((row, y) => {
      row.forEach((dark, x) => {
        if (dark) path += `M${x} ${y}h1v1h-1z`;
      });
    });
    return { d: path, n: qr.size };
  }, [value]);
  return (
    <svg
      data-testid="qr-code"
      data-value={value}
      role="img"
      aria-label={label}
      width={size}
      height={size}
      viewBox={`0 0 ${n} ${n}`}
      shapeRendering="crispEdges"
    >
      {/* Black on white whatever the theme: scanners expect dark modules on light. */}
      <rect width={n} height={n} fill="#ffffff" />
      <path d={d} fill="#000000" />
    </svg>
  );
});
