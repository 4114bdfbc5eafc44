import { mockFetch, route } from '../../test/fetch';
import type { Contact } from '../../api/types';
import type { MapContact } from '../../api/supervision';
import { applyContact, loadClientMap } from './clientMap.machine';

const ana: MapContact = { contactId: 1, name: 'Ana', number: '55', value: '1,2', ticketId: 9, lat: 1, lng: 2 };
const contact = (id: number, extra: { name: string; value: string }[]) => ({ id, name: `C${id}`, number: '1', extraInfo: extra }) as unknown as Contact;

describe('applyContact', () => {
  it('moves a contact whose location changed, keeping its last ticket', () => {
    expect(applyContact([ana], contact(1, [{ name: 'location', value: 'geo:3,4' }]))).toEqual([
      { contactId: 1, name: 'C1', number: '1', value: 'geo:3,4', ticketId: 9, lat: 3, lng: 4 },
    ]);
  });
  it('adds a contact that gained a location and drops one whose location went or became unreadable', () => {
    expect(applyContact([ana], contact(2, [{ name: 'Location', value: '5,6' }]))).toHaveLength(2);
    expect(applyContact([ana], contact(1, []))).toEqual([]);
    expect(applyContact([ana], contact(1, [{ name: 'location', value: '<b>x</b>' }]))).toEqual([]);
    const same = [ana];
    expect(applyContact(same, contact(3, [{ name: 'cpf', value: '1,2' }]))).toBe(same);
  });
});

describe('loadClientMap', () => {
  it('reads every page by cursor and sums the unreadable locations', async () => {
    const { calls } = mockFetch(
      route('GET', '/maps/config', { body: { tileUrl: '', attribution: '' } }),
      route('GET', '/maps/contacts', (c) =>
        c.url.includes('after=1')
          ? { body: { contacts: [{ ...ana, contactId: 2 }], invalid: [], invalidCount: 1, hasMore: false } }
          : { body: { contacts: [ana], invalid: [{ contactId: 5, name: 'X', value: 'bad' }], invalidCount: 1, hasMore: true, nextCursor: 1 } },
      ),
    );
    const data = await loadClientMap();
    expect(data.contacts.map((c) => c.contactId)).toEqual([1, 2]);
    expect(data.invalidCount).toBe(2);
    expect(data.invalid).toHaveLength(1);
    expect(calls.filter((c) => c.url.includes('/maps/contacts'))).toHaveLength(2);
  });
});
