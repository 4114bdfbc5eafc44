// /Broadcasts: send one message (with media) to picked contacts through one
// connection. Contacts are found by search or tag and picked one by one or all at
// once. The server answers the section-5 errors (no channel, no contacts, no credits);
// credits are a tenant counter an admin sets here. Each broadcast shows its live
// progress and, on demand, each contact's status (sent, error with its reason, pending).
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { connectionsApi, contactsApi, tagsApi } from '../../api/endpoints';
import type { Connection, Contact, ID, Tag } from '../../api/types';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { errorText } from '../../app/errors';
import { Button, Field, Input, Muted, Row, Select, TextArea } from '../../components/primitives';
import { FilePicker } from '../../components/FilePicker';
import { Header, Page, Title } from '../../components/pageStyle';
import { toast } from '../../components/toast/toastStore';
import { campaignsApi, type Campaign } from './api';
import { CampaignProgress } from './CampaignProgress';
import { useCampaignList } from './useCampaignList';
import { Form, List, Picker } from './style';

export default function BroadcastsPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const { items, upsert } = useCampaignList('broadcast');
  const [connections, setConnections] = useState<Connection[]>([]);
  const [tags, setTags] = useState<Tag[]>([]);
  const [connectionId, setConnectionId] = useState<ID | ''>('');
  const [search, setSearch] = useState('');
  const [tagId, setTagId] = useState<ID | ''>('');
  const [found, setFound] = useState<Contact[]>([]);
  const [picked, setPicked] = useState<Map<ID, Contact>>(new Map());
  const [message, setMessage] = useState('');
  const [media, setMedia] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [credits, setCredits] = useState<number | null>(null);
  const [newCredits, setNewCredits] = useState('');

  useEffect(() => {
    connectionsApi.list().then(setConnections, (e: unknown) => toast.error(errorText(e)));
    tagsApi.list().then(setTags, () => setTags([]));
    campaignsApi.credits().then((r) => setCredits(r.credits), () => setCredits(null));
  }, []);
  useEffect(() => {
    const id = setTimeout(() => {
      contactsApi.search(search).then(
        (r) => setFound(r.contacts ?? []),
        (e: unknown) => toast.error(errorText(e)),
      );
    }, 300);
    return () => clearTimeout(id);
  }, [search]);

  const toggle = (c: Contact) =>
    setPicked((m) => {
      const next = new Map(m);
      if (next.has(c.id)) next.delete(c.id);
      else next.set(c.id, c);
      return next;
    });
  const selectAll = () =>
    setPicked((m) => {
      const next = new Map(m);
      for (const c of found) next.set(c.id, c);
      return next;
    });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      let mediaPath: string | undefined;
      let mediaType: string | undefined;
      if (media) ({ mediaPath, mediaType } = await campaignsApi.uploadMedia(media));
      const c: Campaign = await campaignsApi.create({
        kind: 'broadcast',
        sendFrom: connectionId ? [connectionId] : [],
        contactIds: [...picked.keys()],
        tagIds: tagId ? [tagId] : [],
        messages: [{ seq: 1, body: message, mediaPath, mediaType }],
      });
      upsert(c);
      toast.success(t('outbound.created'));
      setPicked(new Map());
      setMessage('');
      setMedia(null);
      campaignsApi.credits().then((r) => setCredits(r.credits), () => undefined);
    } catch (err) {
      toast.error(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const saveCredits = () => {
    campaignsApi.setCredits(Number(newCredits)).then(
      (r) => {
        setCredits(r.credits);
        setNewCredits('');
      },
      (e: unknown) => toast.error(errorText(e)),
    );
  };

  return (
    <Page>
      <Header>
        <Title>{t('outbound.broadcasts.title')}</Title>
        {credits !== null && <Muted data-testid="credits">{t('outbound.broadcasts.credits', { count: credits })}</Muted>}
      </Header>
      {can(perms.manageSettings) && (
        <Row $gap={8}>
          <Field>
            {t('outbound.broadcasts.creditsLabel')}
            <Input type="number" min={0} value={newCredits} onChange={(e) => setNewCredits(e.target.value)} name="credits" />
          </Field>
          <Button type="button" $variant="ghost" onClick={saveCredits} disabled={newCredits === ''}>
            {t('outbound.broadcasts.saveCredits')}
          </Button>
        </Row>
      )}
      <Form onSubmit={submit} aria-label={t('outbound.broadcasts.new')} noValidate>
        <Field>
          {t('outbound.broadcasts.connection')}
          <Select name="connection" value={connectionId} onChange={(e) => setConnectionId(e.target.value ? Number(e.target.value) : '')}>
            <option value="">{t('outbound.broadcasts.chooseConnection')}</option>
            {connections.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </Select>
        </Field>
        <Row $gap={8} $wrap>
          <Field>
            {t('outbound.broadcasts.searchContacts')}
            <Input type="search" name="search" value={search} onChange={(e) => setSearch(e.target.value)} />
          </Field>
          <Field>
            {t('outbound.broadcasts.tags')}
            <Select name="tag" value={tagId} onChange={(e) => setTagId(e.target.value ? Number(e.target.value) : '')}>
              <option value="">—</option>
              {tags.map((tg) => (
                <option key={tg.id} value={tg.id}>
                  {tg.name}
                </option>
              ))}
            </Select>
          </Field>
          <Button type="button" $variant="ghost" onClick={selectAll}>
            {t('outbound.broadcasts.selectAll')}
          </Button>
          <Muted data-testid="picked">{t('outbound.broadcasts.selected', { count: picked.size })}</Muted>
        </Row>
        <Picker aria-label={t('outbound.broadcasts.contacts')}>
          {found.map((c) => (
            <li key={c.id}>
              <label>
                <input type="checkbox" checked={picked.has(c.id)} onChange={() => toggle(c)} />
                {c.name} <Muted>{c.number}</Muted>
              </label>
            </li>
          ))}
        </Picker>
        <Field>
          {t('outbound.broadcasts.message')}
          <TextArea name="message" value={message} onChange={(e) => setMessage(e.target.value)} $minHeight={80} />
        </Field>
        <FilePicker label={t('outbound.broadcasts.media')} name="media" onChange={(f) => setMedia(f)} />
        <Row>
          <Button type="submit" disabled={busy}>
            {t('outbound.broadcasts.send')}
          </Button>
        </Row>
      </Form>
      <List>
        {items.length === 0 && <Muted>{t('outbound.broadcasts.empty')}</Muted>}
        {items.map((c) => (
          <CampaignProgress key={c.id} campaign={c} onChange={upsert} />
        ))}
      </List>
    </Page>
  );
}
