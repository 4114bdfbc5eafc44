// The campaign form (spec sections 3 and 5, issue 12 item 3): name and plan; the
// segment — picked contacts, tags, groups, leads, an area drawn on the map, and a CSV
// of contacts with @param1–@param5 (previewed: the good lines and each bad line with
// its number and message); the name filter ('%' for all), the default connection's
// inclusion, the connections to send from and the channel filter ('%' for all); the
// start in the tenant's zone; the messages in sequence; and the buttons. The server
// checks section 5 and answers each field's message, shown under it.
import { lazy, Suspense, useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { ParseKeys } from 'i18next';
import { connectionsApi, contactsApi, tagsApi } from '../../api/endpoints';
import type { Connection, Contact, ID, Tag } from '../../api/types';
import { errorText } from '../../app/errors';
import { isApiError } from '../../api/errors';
import { serverFieldKey } from '../../app/validation';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { Button, Field, Input, Muted, Row, Switch, TextArea } from '../../components/primitives';
import { FilePicker } from '../../components/FilePicker';
import { MultiSelect } from '../../components/MultiSelect';
import { toast } from '../../components/toast/toastStore';
import { loadMapConfig } from '../clientmap/mapConfig';
import type { MapConfig } from '../../api/supervision';
import { campaignsApi, type Campaign, type CampaignButtons, type CampaignMessage, type CsvPreview, type LatLngPoint } from './api';
import { Picker } from './style';

const PolygonMap = lazy(() => import('./PolygonMap'));

type Fields = 'name' | 'contacts' | 'nameFilter' | 'channelFilter' | 'startAt' | 'messages' | 'buttons' | 'polygon' | 'planName';
const fieldNames: Fields[] = ['name', 'contacts', 'nameFilter', 'channelFilter', 'startAt', 'messages', 'buttons', 'polygon', 'planName'];

const buttonFields: (keyof CampaignButtons)[] = ['url1Caption', 'url1', 'url2Caption', 'url2', 'phoneCaption', 'phone', 'message', 'destination'];
const buttonLabel: Record<keyof CampaignButtons, ParseKeys> = {
  url1Caption: 'outbound.campaigns.url1Caption',
  url1: 'outbound.campaigns.url1',
  url2Caption: 'outbound.campaigns.url2Caption',
  url2: 'outbound.campaigns.url2',
  phoneCaption: 'outbound.campaigns.phoneCaption',
  phone: 'outbound.campaigns.phone',
  message: 'outbound.campaigns.buttonMessage',
  destination: 'outbound.campaigns.destination',
};

// The contact variables the messages may use besides @param1–@param5 (code, not text).
const contactVariables = '{{name}} {{firstName}} {{email}} {{phone}} {{date}} {{hour}} {{greeting}}';

export function CampaignModal({ onClose, onSaved }: { onClose: () => void; onSaved: (c: Campaign) => void }) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [planName, setPlanName] = useState('');
  const [nameFilter, setNameFilter] = useState('%');
  const [channelFilter, setChannelFilter] = useState('%');
  const [includeDefault, setIncludeDefault] = useState(true);
  const [groups, setGroups] = useState(false);
  const [leads, setLeads] = useState(false);
  const [startAt, setStartAt] = useState('');
  const [messages, setMessages] = useState<CampaignMessage[]>([{ seq: 1, body: '' }]);
  const [buttons, setButtons] = useState<CampaignButtons>({});
  const [polygon, setPolygon] = useState<LatLngPoint[]>([]);
  const [csv, setCsv] = useState<CsvPreview | null>(null);
  const [connections, setConnections] = useState<Connection[]>([]);
  const [sendFrom, setSendFrom] = useState<ID[]>([]);
  const [tags, setTags] = useState<Tag[]>([]);
  const [tagIds, setTagIds] = useState<ID[]>([]);
  const [search, setSearch] = useState('');
  const [found, setFound] = useState<Contact[]>([]);
  const [picked, setPicked] = useState<ID[]>([]);
  const [map, setMap] = useState<MapConfig | null>(null);
  const [showMap, setShowMap] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<Fields, ParseKeys>>>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    connectionsApi.list().then(setConnections, () => setConnections([]));
    tagsApi.list().then(setTags, () => setTags([]));
  }, []);
  useEffect(() => {
    const id = setTimeout(() => contactsApi.search(search).then((r) => setFound(r.contacts ?? []), () => setFound([])), 300);
    return () => clearTimeout(id);
  }, [search]);
  useEffect(() => {
    if (showMap && !map) loadMapConfig().then(setMap, () => setMap({ tileUrl: '', attribution: '' }));
  }, [showMap, map]);

  const readCsv = (file: File | null) => {
    if (!file) return setCsv(null);
    campaignsApi.previewCsv(file).then(setCsv, (e: unknown) => toast.error(errorText(e)));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      const c = await campaignsApi.create({
        kind: 'campaign',
        name,
        planName,
        contactIds: picked,
        tagIds,
        groups,
        leads,
        polygon: polygon.length ? polygon : undefined,
        csv: csv?.contacts,
        nameFilter,
        channelFilter,
        includeDefault,
        sendFrom,
        startAt,
        messages: messages.map((m, i) => ({ ...m, seq: i + 1 })),
        buttons,
      });
      onSaved(c);
      toast.success(t('outbound.created'));
      onClose();
    } catch (err) {
      if (isApiError(err) && err.fields) {
        const out: Partial<Record<Fields, ParseKeys>> = {};
        for (const f of fieldNames) {
          const key = err.fields[f] ? serverFieldKey(err.fields[f]) : null;
          if (key) out[f] = key;
        }
        setErrors(out);
      }
      toast.error(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const setMessage = (i: number, body: string) => setMessages((ms) => ms.map((m, j) => (j === i ? { ...m, body } : m)));

  return (
    <FormDialog id="campaign-form" title={t('outbound.campaigns.new')} width={760} busy={busy} onClose={onClose} onSubmit={submit}>
      <Field>
        {t('outbound.campaigns.name')}
        <Input name="name" value={name} onChange={(e) => setName(e.target.value)} aria-invalid={!!errors.name} />
        <FormErrorText error={errors.name} />
      </Field>
      <Field>
        {t('outbound.campaigns.planName')}
        <Input name="planName" value={planName} onChange={(e) => setPlanName(e.target.value)} />
      </Field>
      <fieldset>
        <legend>{t('outbound.campaigns.segment')}</legend>
        <Field>
          {t('outbound.campaigns.contacts')}
          <Input type="search" name="contactSearch" value={search} onChange={(e) => setSearch(e.target.value)} />
        </Field>
        <Picker aria-label={t('outbound.campaigns.contacts')}>
          {found.map((c) => (
            <li key={c.id}>
              <label>
                <input
                  type="checkbox"
                  checked={picked.includes(c.id)}
                  onChange={() => setPicked((p) => (p.includes(c.id) ? p.filter((x) => x !== c.id) : [...p, c.id]))}
                />
                {c.name} <Muted>{c.number}</Muted>
              </label>
            </li>
          ))}
        </Picker>
        <MultiSelect label={t('outbound.campaigns.tags')} choices={tags} value={tagIds} onChange={setTagIds} />
        <Row $gap={16} $wrap>
          <label>
            <Switch checked={groups} onChange={(e) => setGroups(e.target.checked)} /> {t('outbound.campaigns.groups')}
          </label>
          <label>
            <Switch checked={leads} onChange={(e) => setLeads(e.target.checked)} /> {t('outbound.campaigns.leads')}
          </label>
          <Button type="button" $small $variant="ghost" onClick={() => setShowMap((v) => !v)} aria-expanded={showMap}>
            {t('outbound.campaigns.polygon')}
          </Button>
        </Row>
        {showMap && (
          <>
            <Muted>{t('outbound.campaigns.polygonHelp')}</Muted>
            {map && (
              <Suspense fallback={null}>
                <PolygonMap value={polygon} onChange={setPolygon} tileUrl={map.tileUrl} attribution={map.attribution} label={t('outbound.campaigns.polygon')} />
              </Suspense>
            )}
          </>
        )}
        {polygon.length > 0 && (
          <Row $gap={8}>
            <Muted>{t('outbound.campaigns.polygonPoints', { count: polygon.length })}</Muted>
            <Button type="button" $small $variant="ghost" onClick={() => setPolygon([])}>
              {t('outbound.campaigns.clearPolygon')}
            </Button>
          </Row>
        )}
        <FormErrorText error={errors.polygon} />
        <Field as="div">
          {t('outbound.campaigns.csv')}
          <FilePicker label={t('outbound.campaigns.csv')} name="csv" accept=".csv,text/csv,text/plain" onChange={readCsv} />
        </Field>
        {csv && (
          <div data-testid="csv-preview">
            <Muted>{t('outbound.campaigns.csvPreview', { count: csv.contacts.length })}</Muted>
            {csv.errors.length > 0 && (
              <>
                <strong>{t('outbound.campaigns.csvErrors')}</strong>
                <ul>
                  {csv.errors.map((er) => (
                    <li key={er.line} data-testid={`csv-error-${er.line}`}>
                      {t('outbound.campaigns.csvLine', { line: er.line, message: t(serverFieldKey(er.message) ?? 'validation.csvFormat') })}
                    </li>
                  ))}
                </ul>
              </>
            )}
          </div>
        )}
        <FormErrorText error={errors.contacts} />
      </fieldset>
      <Row $gap={8} $wrap>
        <Field>
          {t('outbound.campaigns.nameFilter')}
          <Input name="nameFilter" value={nameFilter} onChange={(e) => setNameFilter(e.target.value)} aria-invalid={!!errors.nameFilter} />
          <FormErrorText error={errors.nameFilter} />
        </Field>
        <Field>
          {t('outbound.campaigns.channelFilter')}
          <Input name="channelFilter" value={channelFilter} onChange={(e) => setChannelFilter(e.target.value)} aria-invalid={!!errors.channelFilter} />
          <FormErrorText error={errors.channelFilter} />
        </Field>
      </Row>
      <label>
        <Switch checked={includeDefault} onChange={(e) => setIncludeDefault(e.target.checked)} /> {t('outbound.campaigns.includeDefault')}
      </label>
      <MultiSelect label={t('outbound.campaigns.sendFrom')} choices={connections} value={sendFrom} onChange={setSendFrom} />
      <Field>
        {t('outbound.campaigns.startAt')}
        <Input type="datetime-local" name="startAt" value={startAt} onChange={(e) => setStartAt(e.target.value)} aria-invalid={!!errors.startAt} />
        <FormErrorText error={errors.startAt} />
      </Field>
      <fieldset>
        <legend>{t('outbound.campaigns.messages')}</legend>
        <Muted>
          {t('outbound.campaigns.variables')} <code>{contactVariables}</code>
        </Muted>
        {messages.map((m, i) => (
          <Field key={i}>
            {t('outbound.campaigns.messageN', { seq: i + 1 })}
            <TextArea name={`message-${i + 1}`} value={m.body} onChange={(e) => setMessage(i, e.target.value)} $minHeight={60} />
            {messages.length > 1 && (
              <Button type="button" $small $variant="ghost" onClick={() => setMessages((ms) => ms.filter((_, j) => j !== i))}>
                {t('outbound.campaigns.removeMessage', { seq: i + 1 })}
              </Button>
            )}
          </Field>
        ))}
        <FormErrorText error={errors.messages} />
        <Button type="button" $small $variant="ghost" onClick={() => setMessages((ms) => [...ms, { seq: ms.length + 1, body: '' }])}>
          {t('outbound.campaigns.addMessage')}
        </Button>
      </fieldset>
      <fieldset>
        <legend>{t('outbound.campaigns.buttons')}</legend>
        <Row $gap={8} $wrap>
          {buttonFields.map((f) => (
            <Field key={f}>
              {t(buttonLabel[f])}
              <Input name={`button-${f}`} value={buttons[f] ?? ''} onChange={(e) => setButtons((b) => ({ ...b, [f]: e.target.value }))} />
            </Field>
          ))}
        </Row>
        <FormErrorText error={errors.buttons} />
      </fieldset>
    </FormDialog>
  );
}
