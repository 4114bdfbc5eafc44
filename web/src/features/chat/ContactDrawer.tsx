// The contact drawer (width 320): details, extra info ('location' shows a small map,
// read as the client maps read it: features/clientmap/location.ts),
// sales opportunities with won/lost marking, and the satisfaction icon.
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Avatar } from '../../components/Avatar';
import { Icon, type IconName } from '../../components/Icon';
import { IconButton, Muted } from '../../components/primitives';
import { contactsApi } from '../../api/endpoints';
import type { Contact, SalesOpp } from '../../api/types';
import { parseLocation, type LatLng } from '../clientmap/location';
import { ContactLocationMap } from '../clientmap/ContactLocationMap';
import { satisfactionScore, type SatisfactionLevel } from '../../app/rules';
import { DrawerAside, DrawerSection, InfoList, OppCard, OppButtons, Satisfaction } from './style';

const levelIcon: Record<SatisfactionLevel, IconName> = { low: 'moodBad', medium: 'moodNeutral', high: 'mood' };

function mapLink({ lat, lng }: LatLng): string {
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lng}#map=16/${lat}/${lng}`;
}

export function ContactDrawer({ contact, overlay, onClose }: { contact: Contact; overlay: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [opps, setOpps] = useState<SalesOpp[]>(contact.salesOpps ?? []);
  useEffect(() => setOpps(contact.salesOpps ?? []), [contact.salesOpps]);
  const sat = satisfactionScore(contact.appraisalData); // spec section 9
  const score = sat?.score ?? null;
  const level = sat?.level ?? null;

  const mark = (opp: SalesOpp, status: 0 | 1) => {
    setOpps((list) => list.map((o) => (o.id === opp.id ? { ...o, closingStatus: status } : o)));
    // Failures of the opportunity update are ignored (spec section 8).
    contactsApi.markOpportunity(opp.id, status).catch(() => undefined);
  };

  return (
    <DrawerAside $overlay={overlay} aria-label={t('chat.contact.title')}>
      <DrawerSection>
        <IconButton type="button" aria-label={t('common.actions.close')} onClick={onClose} style={{ alignSelf: 'flex-end' }}>
          <Icon name="close" />
        </IconButton>
        <Avatar name={contact.name} src={contact.profilePicUrl || contact.displayPic} size={96} />
        <strong>{contact.name}</strong>
        <Muted>{contact.number}</Muted>
        {contact.email && <Muted>{contact.email}</Muted>}
        {level && score !== null && (
          <Satisfaction $level={level} title={t('chat.contact.satisfaction', { score: score.toFixed(1) })}>
            <Icon name={levelIcon[level]} size={28} label={t(`chat.contact.satisfactionLevels.${level}`)} />
            <span>{score.toFixed(1)}</span>
          </Satisfaction>
        )}
      </DrawerSection>
      <DrawerSection>
        <h3>{t('chat.contact.extraInfo')}</h3>
        {(contact.extraInfo ?? []).length === 0 ? (
          <Muted>{t('chat.contact.none')}</Muted>
        ) : (
          <InfoList>
            {(contact.extraInfo ?? []).map((info, i) => {
              const isLocation = info.name.trim().toLowerCase() === 'location';
              const point = isLocation ? parseLocation(info.value) : null;
              return (
                <div key={info.id ?? i}>
                  <dt>{info.name}</dt>
                  <dd>
                    {point ? (
                      <>
                        <ContactLocationMap id={contact.id} name={contact.name} point={point} />
                        <a href={mapLink(point)} target="_blank" rel="noreferrer">
                          {t('chat.contact.openMap')}
                        </a>
                      </>
                    ) : (
                      <>
                        {info.value}
                        {isLocation && <Muted> ({t('supervision.map.unreadable')})</Muted>}
                      </>
                    )}
                  </dd>
                </div>
              );
            })}
          </InfoList>
        )}
      </DrawerSection>
      <DrawerSection>
        <h3>{t('chat.contact.opportunities')}</h3>
        {opps.length === 0 && <Muted>{t('chat.contact.none')}</Muted>}
        {opps.map((o) => {
          const status = o.closingStatus === 1 ? 'won' : o.closingStatus === 0 ? 'lost' : 'open';
          return (
            <OppCard key={o.id} $status={status} data-status={status}>
              <strong>{o.name}</strong>
              <span>{o.value}</span>
              <Muted>{o.stage}</Muted>
              {status === 'open' ? (
                <OppButtons>
                  <IconButton type="button" $size={30} aria-label={t('chat.contact.markWon')} title={t('chat.contact.markWon')} onClick={() => mark(o, 1)}>
                    <Icon name="thumbUp" size={18} />
                  </IconButton>
                  <IconButton type="button" $size={30} aria-label={t('chat.contact.markLost')} title={t('chat.contact.markLost')} onClick={() => mark(o, 0)}>
                    <Icon name="thumbDown" size={18} />
                  </IconButton>
                </OppButtons>
              ) : (
                <Icon name={status === 'won' ? 'thumbUp' : 'thumbDown'} size={18} label={t(`chat.contact.${status}`)} />
              )}
            </OppCard>
          );
        })}
      </DrawerSection>
    </DrawerAside>
  );
}
