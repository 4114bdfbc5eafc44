import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { contactLocation, parseLocation } from './location';

// The cases the Go parser (engine/location.go) is held to as well.
const cases = JSON.parse(readFileSync(resolve(process.cwd(), '../engine/testdata/locations.json'), 'utf8')) as {
  in: string;
  ok: boolean;
  lat?: number;
  lng?: number;
}[];

describe('parseLocation', () => {
  it('has the shared cases', () => {
    expect(cases.length).toBeGreaterThan(30);
  });

  it.each(cases.map((c) => [c.in, c] as const))('%j', (_, c) => {
    const got = parseLocation(c.in);
    if (c.ok) expect(got).toEqual({ lat: c.lat, lng: c.lng });
    else expect(got).toBeNull();
  });

  it('refuses overlong values', () => {
    expect(parseLocation(`https://www.google.com/maps?q=-15.6,-56.1&x=${'a'.repeat(2048)}`)).toBeNull();
  });
});

describe('contactLocation', () => {
  it('reads the first location entry, whatever its case', () => {
    expect(contactLocation([{ name: 'cpf', value: '1' }, { name: 'Location', value: '1,2' }, { name: 'location', value: '3,4' }])).toEqual({
      value: '1,2',
      point: { lat: 1, lng: 2 },
    });
    expect(contactLocation([{ name: 'location', value: 'Rua X' }])).toEqual({ value: 'Rua X', point: null });
    expect(contactLocation([])).toBeNull();
    expect(contactLocation(undefined)).toBeNull();
  });
});
