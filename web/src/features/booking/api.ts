// The booking scheduler's calls (spec section 7; docs/api.md section 2.8b). Slot times
// travel as 'YYYY-MM-DD HH:mm' in the tenant's zone.
import { http } from '../../api/client';
import type { ID } from '../../api/types';

export interface Place {
  placeId: ID;
  placeName: string;
  placeLat: number;
  placeLng: number;
}

export interface Position {
  positionId: ID;
  placeId: ID;
  userId: ID;
  positionName: string;
  positionColor: string;
}

export interface Slot {
  slotId: ID;
  slotDate: string;
  slotHour: string;
  booked?: boolean;
}

export interface AvailabilityEntry {
  userId: ID;
  positionId: ID;
  toInsert: string[];
  toRemove?: string[];
  weekStart?: string;
}

export interface PositionInput {
  positionId?: ID;
  placeId: ID;
  userId: ID;
  positionName: string;
  positionColor: string;
}

export const bookingApi = {
  places: (): Promise<{ currPlaces: Place[] }> => http.get('/places'),
  createPlace: (body: { placeName: string; placeLat: number | null; placeLng: number | null }): Promise<Place> => http.post('/places', { body }),
  deletePlace: (id: ID): Promise<void> => http.delete(`/places/${id}`),
  positions: (userId: ID): Promise<{ currPositions: Position[] }> => http.get(`/listpositions/${userId}`),
  savePosition: (body: PositionInput): Promise<Position> => http.post('/ws/capacityposition', { body }),
  futureSlots: (positionId: ID, userId: ID): Promise<{ futureSlots: Slot[] }> =>
    http.post('/futureslots', { body: { positionId, userId } }),
  availableSlots: (positionId: ID, userId: ID, days?: number): Promise<{ availableSlots: Slot[] }> =>
    http.post('/availableslots', { body: { positionId, userId, days } }),
  createSlots: (positionId: ID, userId: ID): Promise<{ created: number; futureSlots: Slot[] }> =>
    http.post('/createslots', { body: { positionId, userId } }),
  insertByGrid: (entries: AvailabilityEntry[]): Promise<{ inserted: number; removed: number }> =>
    http.post('/insertavailabilitybygrid', { body: entries }),
  insertAvailability: (entries: AvailabilityEntry[]): Promise<{ inserted: number; removed: number }> =>
    http.post('/insertavailability', { body: entries }),
};

export const slotKey = (s: Slot): string => `${s.slotDate} ${s.slotHour}`;
